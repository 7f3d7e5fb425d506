import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, IsUrl, Matches, MaxLength } from 'class-validator';
import { TenantBodyDto } from '../../../common/http/tenant-body.dto';
import { OptionalNullable } from '../../../common/decorators/optional.decorators';

const COLOR = /^#[0-9A-Fa-f]{6}$/;
const HTTP_URL = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };

/** Each field is optional; null clears it. */
export class UpdateBrandingDto extends TenantBodyDto {
  @ApiPropertyOptional({ nullable: true, type: String, format: 'uri' })
  @OptionalNullable()
  @IsString()
  @MaxLength(2048)
  @IsUrl(HTTP_URL, { message: 'logoUrl must be an http(s) URL' })
  logoUrl?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, format: 'uri' })
  @OptionalNullable()
  @IsString()
  @MaxLength(2048)
  @IsUrl(HTTP_URL, { message: 'faviconUrl must be an http(s) URL' })
  faviconUrl?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, example: '#1A2B3C' })
  @OptionalNullable()
  @IsString()
  @MaxLength(7)
  @Matches(COLOR, { message: 'primaryColor must be a #RRGGBB colour' })
  primaryColor?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, example: '#FFCC00' })
  @OptionalNullable()
  @IsString()
  @MaxLength(7)
  @Matches(COLOR, { message: 'accentColor must be a #RRGGBB colour' })
  accentColor?: string | null;
}
