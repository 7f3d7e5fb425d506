import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, Length, Matches, MaxLength, MinLength } from 'class-validator';
import { Plan } from '../../../generated/prisma/enums';
import { IsNotUuidShaped } from '../../../common/validation/uuid';
import { OptionalNotNull } from '../../../common/decorators/optional.decorators';

export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{1,61}[a-z0-9])$/;

export class CreateCommunityDto {
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name: string;

  /** 3–63 of a-z 0-9 and '-', not starting or ending with '-', and never shaped like a uuid */
  @IsString()
  @Length(3, 63)
  @Matches(SLUG_PATTERN, { message: 'slug must be 3-63 of a-z, 0-9 and -' })
  @IsNotUuidShaped()
  slug: string;

  /** FREE for everyone; PRO and ENTERPRISE only for platform admins */
  @ApiPropertyOptional({ enum: Plan })
  @OptionalNotNull()
  @IsIn(Object.values(Plan))
  plan?: Plan;
}
