import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, MaxLength, MinLength } from 'class-validator';
import { ROLES } from '../../../common/access/permissions';
import { PageQueryDto } from '../../../common/pagination/page-query.dto';
import type { Role } from '../../../generated/prisma/enums';
import { OptionalNotNull } from '../../../common/decorators/optional.decorators';

export class ListMembersQueryDto extends PageQueryDto {
  /** only members with this role */
  @ApiPropertyOptional({ enum: ROLES })
  @OptionalNotNull()
  @IsIn(ROLES)
  role?: Role;

  /** case-insensitive prefix of the e-mail or the display name */
  @OptionalNotNull()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  search?: string;
}
