import { Injectable, Module } from '@nestjs/common';
import { isUuid } from '../../common/validation/uuid';
import { Prisma } from '../../generated/prisma/client';
import type { Plan } from '../../generated/prisma/enums';
import { PrismaService, Tx } from '../../prisma/prisma.service';

/** Every column the community routes show or change. */
export const COMMUNITY_SELECT = {
  id: true,
  slug: true,
  name: true,
  plan: true,
  customDomain: true,
  customDomainPending: true,
  customDomainToken: true,
  customDomainRequestedAt: true,
  description: true,
  visibility: true,
  allowMemberPosts: true,
  logoUrl: true,
  faviconUrl: true,
  primaryColor: true,
  accentColor: true,
  portalAllowedOrigins: true,
  createdAt: true,
  updatedAt: true,
} as const;

export type CommunityRow = Prisma.CommunityGetPayload<{ select: typeof COMMUNITY_SELECT }>;
/** Columns a change may write (never the id or the timestamps). */
export type CommunityColumns = Partial<
  Omit<CommunityRow, 'id' | 'slug' | 'plan' | 'createdAt' | 'updatedAt'>
>;

/** The columns of a community as the account routes and the CLI show it. */
const SUMMARY_SELECT = {
  id: true,
  slug: true,
  name: true,
  plan: true,
  customDomain: true,
  createdAt: true,
} as const;

/** What every tenant-scoped request needs of its community (see TenancyService). */
export interface TenantCommunityRow {
  id: string;
  slug: string;
  plan: Plan;
  featureOverrides: unknown;
}

/** What the webhook portal's page needs of the community its URL names (src/bootstrap/portal-static.ts). */
export interface PortalPageCommunity {
  portalAllowedOrigins: string[];
  logoUrl: string | null;
}

/** The one owner of `communities`' queries. */
@Injectable()
export class CommunitiesStore {
  constructor(private readonly prisma: PrismaService) {}

  find(communityId: string, tx: Tx = this.prisma): Promise<CommunityRow> {
    return tx.community.findUniqueOrThrow({ where: { id: communityId }, select: COMMUNITY_SELECT });
  }

  update(tx: Tx, communityId: string, columns: CommunityColumns): Promise<CommunityRow> {
    return tx.community.update({ where: { id: communityId }, data: columns, select: COMMUNITY_SELECT });
  }

  /** The community whose active custom domain this is, if any. */
  findByCustomDomain(domain: string): Promise<{ id: string } | null> {
    return this.prisma.community.findUnique({ where: { customDomain: domain }, select: { id: true } });
  }

  /** The community an id or slug (already lower-cased) names, as tenant resolution reads it. */
  async findTenantRow(ref: string): Promise<TenantCommunityRow | undefined> {
    const [row] = await this.prisma.$queryRaw<TenantCommunityRow[]>`
      SELECT id, slug, plan, feature_overrides AS "featureOverrides" FROM communities
       WHERE ${isUuid(ref) ? Prisma.sql`id = ${ref}::uuid` : Prisma.sql`slug = ${ref}`}`;
    return row;
  }

  /** The community an id or slug names (any case). */
  findRef(ref: string): Promise<{ id: string; slug: string } | null> {
    const where = isUuid(ref) ? { id: ref.toLowerCase() } : { slug: ref.toLowerCase() };
    return this.prisma.community.findFirst({ where, select: { id: true, slug: true } });
  }

  /** The portal page's view of the community an id or slug names (any case), or null. */
  findPortalPage(ref: string): Promise<PortalPageCommunity | null> {
    const where = isUuid(ref) ? { id: ref.toLowerCase() } : { slug: ref.toLowerCase() };
    return this.prisma.community.findFirst({ where, select: { portalAllowedOrigins: true, logoUrl: true } });
  }

  /** Whether members without moderation rights may post. */
  async allowsMemberPosts(communityId: string): Promise<boolean> {
    const row = await this.prisma.community.findUniqueOrThrow({
      where: { id: communityId },
      select: { allowMemberPosts: true },
    });
    return row.allowMemberPosts;
  }

  slugTaken(tx: Tx, slug: string): Promise<boolean> {
    return tx.community.findUnique({ where: { slug }, select: { id: true } }).then((row) => row !== null);
  }

  create(tx: Tx, data: { name: string; slug: string; plan: Plan; description?: string }) {
    return tx.community.create({ data, select: SUMMARY_SELECT });
  }

  findManyBySlugs(slugs: string[]): Promise<{ id: string; slug: string; plan: Plan }[]> {
    return this.prisma.community.findMany({
      where: { slug: { in: slugs } },
      select: { id: true, slug: true, plan: true },
    });
  }

  async anyExists(): Promise<boolean> {
    return (await this.prisma.community.findFirst({ select: { id: true } })) !== null;
  }

  /** Deletes the communities with these slugs; the cascade takes their content, comments and likes. */
  async deleteBySlugs(tx: Tx, slugs: string[]): Promise<void> {
    await tx.community.deleteMany({ where: { slug: { in: slugs } } });
  }
}

/** The store alone, for modules that read communities without the community routes (no import cycle). */
@Module({ providers: [CommunitiesStore], exports: [CommunitiesStore] })
export class CommunitiesStoreModule {}
