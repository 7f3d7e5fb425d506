import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { ParentType } from '../../../generated/prisma/enums';
import { IdParamDto } from '../../../common/http/id-param.dto';

export const PARENT_TYPES = Object.values(ParentType);

/**
 * `:parent/:id` of the comment and like routes (docs/product-decisions.md#4-lists: tweets or tasks, nothing
 * else).
 */
export class ParentParamsDto extends IdParamDto {
  @ApiProperty({ enum: ParentType })
  @IsIn(PARENT_TYPES, { message: `parent must be one of: ${PARENT_TYPES.join(', ')}` })
  parent: ParentType;
}
