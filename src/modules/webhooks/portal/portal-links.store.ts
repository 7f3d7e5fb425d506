import { Injectable } from '@nestjs/common';
import { PrismaService } from '../../../prisma/prisma.service';
import type { BrandingDto } from '../../community/dto/community.dto';

export interface ConsumedPortalLink {
  id: string;
  communityId: string;
  createdById: string;
  communityName: string;
  communitySlug: string;
  /** the community's branding, for the portal to look like the community's own app */
  branding: BrandingDto;
}

/** The one owner of `webhook_portal_links`' queries, and of the portal's read of the caller's memberships. */
@Injectable()
export class PortalLinksStore {
  constructor(private readonly prisma: PrismaService) {}

  /** The user's memberships with their communities (the portal's picker filters them). */
  membershipsOf(userId: string) {
    return this.prisma.membership.findMany({
      where: { userId },
      select: {
        role: true,
        community: { select: { id: true, name: true, slug: true, plan: true, featureOverrides: true } },
      },
      orderBy: { community: { name: 'asc' } },
    });
  }

  async create(link: {
    communityId: string;
    createdById: string;
    tokenHash: string;
    expiresAt: Date;
  }): Promise<{ id: string; expiresAt: Date }> {
    return this.prisma.webhookPortalLink.create({ data: link, select: { id: true, expiresAt: true } });
  }

  /**
   * Marks the link used if it is unused and unexpired, in one conditional UPDATE: of two concurrent
   * exchanges exactly one gets the row. Null when no such link (unknown, used or expired).
   */
  async consume(tokenHash: string): Promise<ConsumedPortalLink | null> {
    const rows = await this.prisma.$queryRaw<ConsumedPortalLink[]>`
      WITH used AS (
        UPDATE webhook_portal_links
           SET used_at = now()
         WHERE token_hash = ${tokenHash} AND used_at IS NULL AND expires_at > now()
     RETURNING id, community_id, created_by_id)
      SELECT used.id, used.community_id AS "communityId", used.created_by_id AS "createdById",
             c.name AS "communityName", c.slug AS "communitySlug",
             json_build_object('logoUrl', c.logo_url, 'faviconUrl', c.favicon_url,
                               'primaryColor', c.primary_color, 'accentColor', c.accent_color) AS branding
        FROM used JOIN communities c ON c.id = used.community_id`;
    return rows[0] ?? null;
  }
}
