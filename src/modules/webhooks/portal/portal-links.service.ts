import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { AppConfig } from '../../../config/app-config';
import { Errors } from '../../../common/errors/app-error';
import { sha256Hex } from '../../auth/api-key-format';
import { TokenService } from '../../auth/token.service';
import { PortalLinksStore } from './portal-links.store';
import { permissionsOf } from '../../../common/access/permissions';
import { hasFeature } from '../../../common/access/plans';
import { portalPageUrl } from './portal-page';
import type { PortalCommunityDto, PortalLinkDto, PortalSessionDto } from './portal-links.dto';

/**
 * Portal links (docs/api.md#webhook-portal, like Svix's App Portal): a community's app hands its admin a link
 * that opens the webhook portal without a password. The token is single-use, short-lived, stored only as its
 * SHA-256, and travels in the URL's fragment so that no server or proxy ever logs it.
 */
@Injectable()
export class PortalLinksService {
  constructor(
    private readonly store: PortalLinksStore,
    private readonly tokens: TokenService,
    private readonly config: AppConfig,
  ) {}

  /** Communities where the user may run webhooks: WEBHOOKS_MANAGE and a plan with `webhooks`. */
  async manageableCommunities(userId: string): Promise<PortalCommunityDto[]> {
    const memberships = await this.store.membershipsOf(userId);
    return memberships
      .filter(
        ({ role, community }) =>
          permissionsOf(role).has('WEBHOOKS_MANAGE') &&
          hasFeature(community.plan, community.featureOverrides, 'webhooks'),
      )
      .map(({ role, community }) => ({ id: community.id, name: community.name, slug: community.slug, role }));
  }

  async create(communityId: string, createdById: string): Promise<PortalLinkDto> {
    const token = randomBytes(32).toString('base64url');
    const link = await this.store.create({
      communityId,
      createdById,
      tokenHash: sha256Hex(token),
      expiresAt: new Date(Date.now() + this.config.portalLinkTtlMs),
    });
    // the community in the query (sent to the server: it decides the page's frame-ancestors), the token in
    // the fragment (never sent)
    const page = portalPageUrl(this.config.publicBaseUrl, communityId);
    return { url: `${page}#token=${token}`, expiresAt: link.expiresAt };
  }

  /**
   * Spends the link for a session. With `community` (the page's pin), a link of another community is
   * refused and left unused: the page would not show its session, and its own page can still open it.
   */
  async exchange(token: string, community?: string): Promise<PortalSessionDto> {
    const tokenHash = sha256Hex(token);
    const link = await this.store.consume(tokenHash, community);
    if (!link) {
      if (community !== undefined && (await this.store.isUnused(tokenHash))) {
        throw Errors.forbidden(
          'This portal link is for another community than this page, so it was not used. ' +
            'Open the webhook portal again from the app of the community you want to manage.',
        );
      }
      throw Errors.unauthorized(
        'This portal link is not valid: it was already used or has expired. Ask for a new link.',
      );
    }
    const session = await this.tokens.issuePortalSession(link);
    return {
      ...session,
      tokenType: 'Bearer',
      communityId: link.communityId,
      communityName: link.communityName,
      communitySlug: link.communitySlug,
      branding: link.branding,
    };
  }
}
