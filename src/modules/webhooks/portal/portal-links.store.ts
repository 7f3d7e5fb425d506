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
   * Marks the link used if it is unused and unexpired, and of `community` (an id or a slug) when one is
   * named, in one conditional UPDATE: of two concurrent exchanges exactly one gets the row. Null when no
   * such link (unknown, used, expired or of another community).
   */
  async consume(tokenHash: string, community?: string): Promise<ConsumedPortalLink | null> {
    const pin = community?.toLowerCase() ?? null;
    const rows = await this.prisma.$queryRaw<ConsumedPortalLink[]>`
      UPDATE webhook_portal_links l
         SET used_at = now()
        FROM communities c
       WHERE l.token_hash = ${tokenHash} AND l.used_at IS NULL AND l.expires_at > now()
         AND c.id = l.community_id
         AND (${pin}::text IS NULL OR c.id::text = ${pin} OR lower(c.slug) = ${pin})
   RETURNING l.id, l.community_id AS "communityId", l.created_by_id AS "createdById",
             c.name AS "communityName", c.slug AS "communitySlug",
             json_build_object('logoUrl', c.logo_url, 'faviconUrl', c.favicon_url,
                               'primaryColor', c.primary_color, 'accentColor', c.accent_color) AS branding`;
    return rows[0] ?? null;
  }

  /** Whether the link could still be exchanged (unused, unexpired), whatever its community. */
  async isUnused(tokenHash: string): Promise<boolean> {
    const rows = await this.prisma.$queryRaw<unknown[]>`
      SELECT 1 FROM webhook_portal_links
       WHERE token_hash = ${tokenHash} AND used_at IS NULL AND expires_at > now()`;
    return rows.length > 0;
  }
}
