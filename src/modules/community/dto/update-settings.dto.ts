import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { Visibility } from '../../../generated/prisma/enums';
import { TenantBodyDto } from '../../../common/http/tenant-body.dto';

/** A DNS name of at least two labels, each 1–63 of a-z 0-9 '-', not starting or ending with '-'. */
export const HOSTNAME_PATTERN =
  /^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

export class UpdateSettingsDto extends TenantBodyDto {
  /** 1–100 characters */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name?: string;

  /** up to 2000 characters */
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string;

  @ApiPropertyOptional({ enum: Visibility })
  @IsOptional()
  @IsIn(Object.values(Visibility))
  visibility?: Visibility;

  @IsOptional()
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
  @ValidateIf((_, value) => value !== null)
  @IsOptional()
  @IsString()
  @MaxLength(253)
  @Matches(HOSTNAME_PATTERN, { message: 'customDomain must be a hostname such as community.example.com' })
  customDomain?: string | null;
}
