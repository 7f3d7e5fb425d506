import { CommunityDto } from '../../account/dto/responses.dto';
import { ApiProperty } from '@nestjs/swagger';
import { Visibility } from '../../../generated/prisma/enums';

export class BrandingDto {
  @ApiProperty({ nullable: true, type: String })
  logoUrl: string | null;
  @ApiProperty({ nullable: true, type: String })
  faviconUrl: string | null;
  @ApiProperty({ nullable: true, type: String, example: '#1A2B3C' })
  primaryColor: string | null;
  @ApiProperty({ nullable: true, type: String, example: '#FFCC00' })
  accentColor: string | null;
}

/** A DNS TXT record to publish. */
export class TxtRecordDto {
  /** the record's name: `_cp-challenge.` + the domain */
  @ApiProperty({ example: '_cp-challenge.community.example.com' })
  name: string;
  /** the record's value: `cp-verify=` + a random token */
  @ApiProperty({ example: 'cp-verify=Jx3q9V2mB7kK1dQwZ0pR5sT8uY4aC6eF' })
  value: string;
}

/**
 * A requested custom domain that resolves nothing yet: publish `txtRecord`, then call
 * `POST /api/sdk/community/custom-domain/verify`. The active `customDomain` (if any) keeps
 * serving until then.
 */
export class CustomDomainPendingDto {
  @ApiProperty({ example: 'community.example.com' })
  domain: string;
  @ApiProperty({ type: TxtRecordDto })
  txtRecord: TxtRecordDto;
  @ApiProperty({ type: Date })
  requestedAt: Date;
}

export class SettingsDto {
  name: string;
  description: string;
  @ApiProperty({ enum: Visibility })
  visibility: Visibility;
  allowMemberPosts: boolean;
  /** the verified domain: requests with this Host resolve to the community */
  @ApiProperty({ nullable: true, type: String })
  customDomain: string | null;
  /** a requested domain waiting for its DNS TXT record to be verified */
  @ApiProperty({ nullable: true, type: CustomDomainPendingDto })
  customDomainPending: CustomDomainPendingDto | null;
  /** https origins allowed to frame the webhook portal (docs/api.md#embedding-the-portal); [] allows none */
  @ApiProperty({ type: [String], example: ['https://app.example.com'] })
  portalAllowedOrigins: string[];
}

/**
 * The community (docs/api.md#community-and-content, as the service routes give it) with its settings and
 * branding.
 */
export class SdkCommunityDto extends CommunityDto {
  description: string;
  @ApiProperty({ enum: Visibility })
  visibility: Visibility;
  allowMemberPosts: boolean;
  /** a requested domain waiting for its DNS TXT record to be verified (see settings) */
  @ApiProperty({ nullable: true, type: CustomDomainPendingDto })
  customDomainPending: CustomDomainPendingDto | null;
  /** https origins allowed to frame the webhook portal (see settings) */
  @ApiProperty({ type: [String], example: ['https://app.example.com'] })
  portalAllowedOrigins: string[];
  branding: BrandingDto;
  updatedAt: Date;
}
