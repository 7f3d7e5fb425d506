import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  registerDecorator,
} from 'class-validator';
import { Visibility } from '../../../generated/prisma/enums';
import { TenantBodyDto } from '../../../common/http/tenant-body.dto';
import { OptionalNotNull, OptionalNullable } from '../../../common/decorators/optional.decorators';
import { MAX_PORTAL_ALLOWED_ORIGINS, parsePortalOrigin } from '../portal-origins';

/** A DNS name of at least two labels, each 1–63 of a-z 0-9 '-', not starting or ending with '-'. */
export const HOSTNAME_PATTERN =
  /^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

function IsPortalOrigin() {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isPortalOrigin',
      target: target.constructor,
      propertyName,
      options: {
        each: true,
        message:
          '$property must hold origins such as https://app.example.com: https, a host and an optional port from 1 to 65535, ' +
          'without a path (not even /), query, fragment, credentials or wildcard',
      },
      validator: { validate: (value: unknown) => parsePortalOrigin(value) !== null },
    });
}

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

  /**
   * The https origins allowed to frame the webhook portal (docs/api.md#embedding-the-portal), its
   * page's frame-ancestors: at most 10, each once; hosts stored lower-cased. [] allows none.
   */
  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_PORTAL_ALLOWED_ORIGINS,
    uniqueItems: true,
    example: ['https://app.example.com'],
  })
  @Transform(({ value }: { value: unknown }) =>
    Array.isArray(value) ? value.map((origin) => parsePortalOrigin(origin) ?? origin) : value,
  )
  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(MAX_PORTAL_ALLOWED_ORIGINS)
  @ArrayUnique({ message: '$property must not name an origin twice' })
  @IsPortalOrigin()
  portalAllowedOrigins?: string[];
}
