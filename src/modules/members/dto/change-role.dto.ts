import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { ROLES } from '../../../common/access/permissions';
import { TenantBodyDto } from '../../../common/http/tenant-body.dto';
import type { Role } from '../../../generated/prisma/enums';

export class ChangeRoleDto extends TenantBodyDto {
  @ApiProperty({ enum: ROLES })
  @IsIn(ROLES)
  role: Role;
}
