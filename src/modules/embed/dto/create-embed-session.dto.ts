import { Transform } from 'class-transformer';
import { IsInt, IsString, Max, MaxLength, Min, registerDecorator } from 'class-validator';
import { TenantBodyDto } from '../../../common/http/tenant-body.dto';
import { parseOrigin } from './origin';
import { OptionalNotNull } from '../../../common/decorators/optional.decorators';

export const EMBED_TTL = { min: 60, max: 86_400, default: 3_600 } as const;

function IsOrigin() {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isOrigin',
      target: target.constructor,
      propertyName,
      options: { message: '$property must be an origin: http(s)://host[:port], without a path' },
      validator: { validate: (value: unknown) => parseOrigin(value) !== null },
    });
}

export class CreateEmbedSessionDto extends TenantBodyDto {
  /** the only page origin allowed to frame the embed, e.g. https://app.example.com */
  @OptionalNotNull()
  @IsString()
  @MaxLength(300)
  @IsOrigin()
  @Transform(({ value }: { value: unknown }) => parseOrigin(value) ?? value)
  allowedOrigin?: string;

  /** lifetime of the session and its token, 60–86400 seconds (default 3600) */
  @OptionalNotNull()
  @IsInt()
  @Min(EMBED_TTL.min)
  @Max(EMBED_TTL.max)
  ttlSeconds?: number;

  /** your own reference for the viewer (opaque to the platform), at most 200 characters */
  @OptionalNotNull()
  @IsString()
  @MaxLength(200)
  userRef?: string;
}

export class EmbedSessionDto {
  id: string;
  /** JWT for embed use only (typ "embed"): every other route refuses it with 401 */
  token: string;
  expiresAt: Date;
  /** the page to frame; carries the session id, never the token */
  embedUrl: string;
  allowedOrigin: string | null;
  userRef: string | null;
  createdAt: Date;
}
