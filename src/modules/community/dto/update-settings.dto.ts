import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { Visibility } from '../../../generated/prisma/enums';
import { TenantBodyDto } from '../../../common/http/tenant-body.dto';
import { OptionalNotNull, OptionalNullable } from '../../../common/decorators/optional.decorators';

/** A DNS name of at least two labels, each 1–63 of a-z 0-9 '-', not starting or ending with '-'. */
export const HOSTNAME_PATTERN =
  /^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

export class UpdateSettingsDto extends TenantBodyDto {
  /** 1–100 characters */
  @OptionalNotNull()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name?: string;

  /** up to 2000 characters */
  @OptionalNotNull()
  @IsString()
  @MaxLength(2000)
  description?: string;

  @ApiPropertyOptional({ enum: Visibility })
  @OptionalNotNull()
  @IsIn(Object.values(Visibility))
  visibility?: Visibility;

  @OptionalNotNull()
  @IsBoolean()
  allowMemberPosts?: boolean;

  /**
   * Hostname that serves this community (requests with this Host resolve to it); case-insensitive,
   * stored lower-cased; unique. Needs the custom_domain feature; null removes it.
   */
  @ApiPropertyOptional({ nullable: true, type: String, example: 'community.example.com' })
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' ? value.trim().toLowerCase() : value,
  )
  @OptionalNullable()
  @IsString()
  @MaxLength(253)
  @Matches(HOSTNAME_PATTERN, { message: 'customDomain must be a hostname such as community.example.com' })
  customDomain?: string | null;
}
