import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsIn, IsString, MaxLength } from 'class-validator';
import { ROLES } from '../../../common/access/permissions';
import type { Role } from '../../../generated/prisma/enums';
import { OptionalNotNull } from '../../../common/decorators/optional.decorators';

/** One member to add or update, matched by e-mail (case-insensitive). */
export class MemberInputDto {
  @IsEmail()
  @MaxLength(254)
  email: string;

  /** display name in this community (the user account is never changed); omitted keeps the member's one */
  @OptionalNotNull()
  @IsString()
  @MaxLength(100)
  name?: string;

  /** default MEMBER for a new member; omitted keeps an existing member's role */
  @ApiPropertyOptional({ enum: ROLES })
  @OptionalNotNull()
  @IsIn(ROLES)
  role?: Role;
}
