import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Role } from '../../../generated/prisma/enums';
import { IsString, Length } from 'class-validator';
import { BrandingDto } from '../../community/dto/community.dto';
import { OptionalNotNull } from '../../../common/decorators/optional.decorators';
import { IsCommunityRef } from '../dto/webhook-requests.dto';

/** POST .../webhooks/portal-links: where the portal opens, and until when the link works. */
export class PortalLinkDto {
  /**
   * `<PUBLIC_BASE_URL>/portal/?community=<communityId>#token=...`: the token is in the fragment, which browsers
   * never send; the community in the query decides who may frame the page (docs/api.md#embedding-the-portal)
   */
  url: string;
  expiresAt: Date;
}

/** POST /api/webhooks/portal-sessions: the token from a portal link's fragment. */
export class ExchangePortalLinkDto {
  @IsString()
  @Length(20, 200)
  token: string;

  /**
   * The community the portal page is for (its URL's `?community=`): a link of another community is refused
   * with 403 and stays unused, so a page cannot spend a link it will not show (docs/api.md#webhook-portal).
   * Not named communityId: the exchange is public, and no tenant is resolved from it.
   */
  @ApiPropertyOptional({
    description:
      'the community (its id or slug) the portal page is for: a link of another community is refused (403) and stays unused',
    example: 'acme',
  })
  @OptionalNotNull()
  @IsCommunityRef()
  community?: string;
}

/** A session for one community's webhook routes: send accessToken as Authorization: Bearer. */
export class PortalSessionDto {
  accessToken: string;
  tokenType: 'Bearer';
  /** seconds */
  expiresIn: number;
  communityId: string;
  communityName: string;
  communitySlug: string;
  /**
   * The community's branding (as PATCH /api/sdk/community/branding sets it), for the portal to look like the
   * community's app: a portal session may call only the community's webhook routes, not the community's own.
   */
  @ApiProperty({ type: BrandingDto })
  branding: BrandingDto;
}

/** A community the caller may run webhooks in (the portal's picker after a password sign-in). */
export class PortalCommunityDto {
  id: string;
  name: string;
  slug: string;
  @ApiProperty({ enum: Role })
  role: Role;
}

export class PortalCommunitiesDto {
  @ApiProperty({ type: [PortalCommunityDto] })
  items: PortalCommunityDto[];
}
