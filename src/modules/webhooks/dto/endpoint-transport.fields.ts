import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsObject, IsString, Length, MaxLength, ValidateNested } from 'class-validator';
import { OptionalNullable } from '../../../common/decorators/optional.decorators';
import { OAUTH2_CLIENT_CREDENTIALS } from '../core/http-transport/endpoint-auth';

/** The sizes a PEM field may have: a certificate with its chain, a key, a CA bundle. */
const MAX_CERTIFICATE_CHARS = 32_768;
const MAX_KEY_CHARS = 16_384;
const MAX_CA_CHARS = 65_536;
/** As an endpoint's url. */
const MAX_TOKEN_URL_LENGTH = 2048;

/** `tls` as a create or PATCH sends it (docs/api.md#mutual-tls). */
export class TlsInputDto {
  /** PEM: the client certificate, optionally followed by its intermediate certificates; not expired */
  @ApiProperty({
    maxLength: MAX_CERTIFICATE_CHARS,
    example: '-----BEGIN CERTIFICATE-----\n…\n-----END CERTIFICATE-----\n',
  })
  @IsString()
  @MaxLength(MAX_CERTIFICATE_CHARS)
  clientCertificate: string;

  /** PEM: the certificate's unencrypted private key. Write-only: stored encrypted, never returned */
  @ApiProperty({
    maxLength: MAX_KEY_CHARS,
    writeOnly: true,
    example: '-----BEGIN PRIVATE KEY-----\n…\n-----END PRIVATE KEY-----\n',
  })
  @IsString()
  @MaxLength(MAX_KEY_CHARS)
  clientKey: string;

  /** PEM: one or more CA certificates that replace the system's roots for this endpoint's server certificate; null or left out: the system's roots */
  @ApiPropertyOptional({ nullable: true, type: String, maxLength: MAX_CA_CHARS })
  @OptionalNullable()
  @IsString()
  @MaxLength(MAX_CA_CHARS)
  caCertificates?: string | null;
}

/** `auth` as a create or PATCH sends it (docs/api.md#oauth-20-client-credentials). */
export class OAuthInputDto {
  @ApiProperty({ enum: [OAUTH2_CLIENT_CREDENTIALS] })
  @IsIn([OAUTH2_CLIENT_CREDENTIALS], { message: `auth.type must be ${OAUTH2_CLIENT_CREDENTIALS}` })
  type: typeof OAUTH2_CLIENT_CREDENTIALS;

  /** the token endpoint: https on port 443, public addresses only, as a target URL; redirects are not followed */
  @ApiProperty({ maxLength: MAX_TOKEN_URL_LENGTH, example: 'https://login.example.com/oauth2/token' })
  @IsString()
  @MaxLength(MAX_TOKEN_URL_LENGTH)
  tokenUrl: string;

  @ApiProperty({ minLength: 1, maxLength: 256, example: 'community-platform' })
  @IsString()
  @Length(1, 256)
  clientId: string;

  /** write-only: stored encrypted; reads show it masked like a custom header value, and a PATCH that sends the masked value back keeps it */
  @ApiProperty({ minLength: 1, maxLength: 1024, example: 'cs_7d1f0a9b4e2c' })
  @IsString()
  @Length(1, 1024)
  clientSecret: string;

  /** sent as the token request's `scope` */
  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 1024 })
  @OptionalNullable()
  @IsString()
  @MaxLength(1024)
  scope?: string | null;

  /** sent as the token request's `audience` (some providers require it) */
  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 1024 })
  @OptionalNullable()
  @IsString()
  @MaxLength(1024)
  audience?: string | null;
}

/** A nested object field that may be sent as null (which removes it) or left out. */
function NullableObjectField(type: new () => object, description: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type, nullable: true, description }),
    OptionalNullable(),
    IsObject(),
    ValidateNested(),
    Type(() => type),
  );
}

export const TlsField = (description: string) => NullableObjectField(TlsInputDto, description);
export const AuthField = (description: string) => NullableObjectField(OAuthInputDto, description);

export const TLS_RULES =
  'mutual TLS: the client certificate (PEM) and its key the platform presents to the receiver, and optionally the CA ' +
  'certificates that replace the system roots for it; https targets only. The key is never returned';
export const AUTH_RULES =
  'OAuth 2.0 client credentials: the platform gets a token from tokenUrl (client_secret_basic), keeps it for every ' +
  'worker until 30 s before it expires and sends it as Authorization: Bearer; with auth set, authorization is refused as a custom header';

/** A certificate as reads show it. */
export class CertificateSummaryDto {
  /** the subject's distinguished name, e.g. "CN=platform-client, O=Example" */
  subject: string;
  /** when the certificate expires */
  @ApiProperty({ type: String, format: 'date-time' })
  notAfter: string;
}

export class ClientCertificateSummaryDto extends CertificateSummaryDto {
  /** SHA-256 fingerprint of the certificate, colon-separated hex pairs */
  @ApiProperty({ example: 'AB:CD:…:EF' })
  fingerprintSha256: string;
}

/** An endpoint's mutual TLS as reads show it: never the key. */
export class TlsViewDto {
  clientCertificate: ClientCertificateSummaryDto;
  /** the CA certificates that replace the system roots for this endpoint; null: the system's roots */
  @ApiProperty({ type: [CertificateSummaryDto], nullable: true })
  caCertificates: CertificateSummaryDto[] | null;
}

/** An endpoint's OAuth client as reads show it: the client secret masked. */
export class AuthViewDto {
  @ApiProperty({ enum: [OAUTH2_CLIENT_CREDENTIALS] })
  type: typeof OAUTH2_CLIENT_CREDENTIALS;
  tokenUrl: string;
  clientId: string;
  /** masked: "…" and its last 4 characters, or "…" alone under 9 */
  @ApiProperty({ example: '…2c4e' })
  clientSecret: string;
  @ApiProperty({ nullable: true, type: String })
  scope: string | null;
  @ApiProperty({ nullable: true, type: String })
  audience: string | null;
}
