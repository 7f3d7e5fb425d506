import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { ROLES } from '../../../common/access/permissions';
import type { Role } from '../../../generated/prisma/enums';

/** One member to add or update, matched by e-mail (case-insensitive). */
export class MemberInputDto {
  @IsEmail()
  @MaxLength(254)
  email: string;

  /** display name in this community (the user account is never changed); omitted keeps the member's one */
  @IsOptional()
  @IsString()
  @MaxLength(100)
  name?: string;

  /** default MEMBER for a new member; omitted keeps an existing member's role */
  @ApiPropertyOptional({ enum: ROLES })
  @IsOptional()
  @IsIn(ROLES)
  role?: Role;
}
