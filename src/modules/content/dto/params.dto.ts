import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsUUID } from 'class-validator';
import { ParentType } from '../../../generated/prisma/enums';

export const PARENT_TYPES = Object.values(ParentType);

/** `:id` of a tweet or a task: anything but a uuid is a 400 naming `id`, never a database error. */
export class IdParamDto {
  @IsUUID('all', { message: 'id must be a uuid' })
  id: string;
}

/**
 * `:parent/:id` of the comment and like routes (docs/product-decisions.md#4-lists: tweets or tasks, nothing
 * else).
 */
export class ParentParamsDto extends IdParamDto {
  @ApiProperty({ enum: ParentType })
  @IsIn(PARENT_TYPES, { message: `parent must be one of: ${PARENT_TYPES.join(', ')}` })
  parent: ParentType;
}
