import type { JsonText } from '../../common/http/json-text';
import { Injectable, Module } from '@nestjs/common';
import type { NewestFirstList } from '../../common/pagination/newest-first-page';
import { newestFirstPage } from '../../common/pagination/newest-first-page';
import type { Page } from '../../common/pagination/page-query.dto';
import { Prisma } from '../../generated/prisma/client';
import type { Role } from '../../generated/prisma/enums';
import { ISO } from '../../prisma/iso-text';
import { PrismaService, Tx } from '../../prisma/prisma.service';
import { MEMBER_SELECT, MemberView, toMemberView } from './member-view';

/**
 * Selects a MemberView from `memberships m JOIN users u` (the name is the membership's display
 * name): raw SQL rows come out in the same shape as toMemberView's, so there is no second mapper.
 */
const MEMBER_COLUMNS = Prisma.sql`m.id::text AS id, m.user_id::text AS "userId", u.email, m.display_name AS name, m.role::text AS role, m.joined_at AS "joinedAt"`;

/**
 * The unfiltered members list: memberships are counted under `members`, newest joined first from
 * the (community_id, joined_at DESC, id DESC) index; the columns are MEMBER_COLUMNS as plain SQL
 * text for the prepared statement, `joinedAt` as ISO text (see ISO).
 */
const MEMBERS_LIST: NewestFirstList = {
  statement: 'members-page',
  counterScope: 'members',
  from: 'memberships m JOIN users u ON u.id = m.user_id',
  communityColumn: 'm.community_id',
  newestFirst: 'm.joined_at DESC, m.id DESC',
  columns: `m.id::text AS id, m.user_id::text AS "userId", u.email, m.display_name AS name, m.role::text AS role, ${ISO('m.joined_at')} AS "joinedAt"`,
};

const NEWEST_FIRST = [{ joinedAt: 'desc' as const }, { id: 'desc' as const }];

/** LIKE pattern for a case-insensitive prefix: the user's text is matched literally. */
export function prefixPattern(search: string): string {
  return `${search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** A batch of members as parallel arrays (one per column), the shape `unnest` takes. */
export interface MemberColumns {
  emails: string[];
  names: (string | null)[];
  roles: (Role | null)[];
}

/**
 * The one owner of `memberships`' queries. A member is shown with its account's e-mail, so the
 * reads join `users` (whose owner is UsersStore); they never write it.
 */
@Injectable()
export class MembershipsStore {
  constructor(private readonly prisma: PrismaService) {}

  /** The user's role in the community, or null when not a member. */
  async findRole(communityId: string, userId: string, tx: Tx = this.prisma): Promise<Role | null> {
    const row = await tx.membership.findUnique({
      where: { communityId_userId: { communityId, userId } },
      select: { role: true },
    });
    return row?.role ?? null;
  }

  /** The community the user joined first (ties broken by id), or null for none. */
  async firstJoinedCommunityId(userId: string): Promise<string | null> {
    const row = await this.prisma.membership.findFirst({
      where: { userId },
      orderBy: [{ joinedAt: 'asc' }, { id: 'asc' }],
      select: { communityId: true },
    });
    return row?.communityId ?? null;
  }

  /** The community's first OWNER (earliest joined). */
  async firstOwner(communityId: string): Promise<{ id: string; email: string } | null> {
    const row = await this.prisma.membership.findFirst({
      where: { communityId, role: 'OWNER' },
      orderBy: [{ joinedAt: 'asc' }, { id: 'asc' }],
      select: { user: { select: { id: true, email: true } } },
    });
    return row?.user ?? null;
  }

  /** The unfiltered list, the hot one: the newest-first page of the members counter. */
  page(communityId: string, page: { page: number; limit: number }): Promise<JsonText<Page<MemberView>>> {
    return newestFirstPage<MemberView>(this.prisma, MEMBERS_LIST, communityId, page);
  }

  /** Newest joined first among the members with this role, and how many there are. */
  async pageWithRole(
    communityId: string,
    role: Role,
    skip: number,
    take: number,
  ): Promise<{ rows: MemberView[]; total: number }> {
    const where = { communityId, role };
    const [rows, total] = await Promise.all([
      this.prisma.membership.findMany({ where, orderBy: NEWEST_FIRST, skip, take, select: MEMBER_SELECT }),
      this.prisma.membership.count({ where }),
    ]);
    return { rows: rows.map(toMemberView), total };
  }

  /** Newest joined first among the members whose e-mail or display name starts with `search`. */
  async search(
    communityId: string,
    filter: { search: string; role?: Role },
    skip: number,
    take: number,
  ): Promise<{ rows: MemberView[]; total: number }> {
    const pattern = prefixPattern(filter.search);
    const where = Prisma.sql`
      m.community_id = ${communityId}::uuid
      ${filter.role ? Prisma.sql`AND m.role = ${filter.role}::"Role"` : Prisma.empty}
      AND (lower(u.email) LIKE ${pattern} OR lower(m.display_name) LIKE ${pattern})`;
    const [rows, counted] = await Promise.all([
      this.prisma.$queryRaw<MemberView[]>`
        SELECT ${MEMBER_COLUMNS} FROM memberships m JOIN users u ON u.id = m.user_id
         WHERE ${where}
         ORDER BY m.joined_at DESC, m.id DESC
         LIMIT ${take} OFFSET ${skip}`,
      this.prisma.$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM memberships m JOIN users u ON u.id = m.user_id WHERE ${where}`,
    ]);
    return { rows, total: counted[0]?.n ?? 0 };
  }

  /**
   * Locks the community's OWNER memberships for the rest of the transaction and returns their ids.
   * Every role change that could remove an OWNER takes this lock first, so two concurrent demotions
   * serialise and the second one sees the first one's result (the last OWNER always stays).
   */
  async lockOwnerIds(tx: Tx, communityId: string): Promise<string[]> {
    const rows = await tx.$queryRaw<{ id: string }[]>`
      SELECT id::text AS id FROM memberships
       WHERE community_id = ${communityId}::uuid AND role = 'OWNER'
       ORDER BY id
         FOR UPDATE`;
    return rows.map((r) => r.id);
  }

  findInCommunity(tx: Tx, communityId: string, id: string): Promise<{ role: Role } | null> {
    return tx.membership.findUnique({
      where: { communityId_id: { communityId, id } },
      select: { role: true },
    });
  }

  async findView(tx: Tx, id: string): Promise<MemberView> {
    return toMemberView(await tx.membership.findUniqueOrThrow({ where: { id }, select: MEMBER_SELECT }));
  }

  async setRole(tx: Tx, communityId: string, id: string, role: Role): Promise<MemberView> {
    return toMemberView(
      await tx.membership.update({
        where: { communityId_id: { communityId, id } },
        data: { role },
        select: MEMBER_SELECT,
      }),
    );
  }

  /** The role of the member with this (normalised) e-mail, or null. */
  findByEmail(tx: Tx, communityId: string, email: string): Promise<{ role: Role } | null> {
    return tx.membership.findFirst({ where: { communityId, user: { email } }, select: { role: true } });
  }

  findByUser(tx: Tx, communityId: string, userId: string) {
    return tx.membership.findUnique({
      where: { communityId_userId: { communityId, userId } },
      select: { role: true, displayName: true },
    });
  }

  /** Creates the membership, or changes what is given of an existing one. */
  async upsert(
    tx: Tx,
    communityId: string,
    userId: string,
    create: { role: Role; displayName: string },
    update: { role?: Role; displayName?: string },
  ): Promise<MemberView> {
    return toMemberView(
      await tx.membership.upsert({
        where: { communityId_userId: { communityId, userId } },
        create: { communityId, userId, ...create },
        update,
        select: MEMBER_SELECT,
      }),
    );
  }

  /** Set-based insert of memberships with their join times (the demo seed). */
  async createMany(
    tx: Tx,
    rows: { communityId: string; userId: string; role: Role; displayName: string; joinedAt: Date }[],
  ): Promise<void> {
    await tx.membership.createMany({ data: rows });
  }

  /** Current memberships of these e-mails, locked so a bulk change's checks stay true until commit. */
  async lockByEmails(tx: Tx, communityId: string, emails: string[]): Promise<Map<string, Role>> {
    const rows = await tx.$queryRaw<{ email: string; role: Role }[]>`
      SELECT u.email, m.role::text AS role
        FROM memberships m JOIN users u ON u.id = m.user_id
       WHERE m.community_id = ${communityId}::uuid AND u.email = ANY(${emails}::text[])
       ORDER BY m.id
         FOR UPDATE OF m`;
    return new Map(rows.map((r) => [r.email, r.role]));
  }

  /**
   * Joins the batch's accounts (which must exist) that are not members yet. The display name is the
   * name sent, else empty: never the account's, which is not ours to show.
   */
  joinMissing(tx: Tx, communityId: string, columns: MemberColumns): Promise<{ id: string }[]> {
    return tx.$queryRaw<{ id: string }[]>`
      INSERT INTO memberships (id, community_id, user_id, role, display_name, joined_at, updated_at)
      SELECT gen_random_uuid(), ${communityId}::uuid, u.id, coalesce(t.role, 'MEMBER')::"Role",
             coalesce(t.name, ''), now(), now()
        FROM unnest(${columns.emails}::text[], ${columns.names}::text[], ${columns.roles}::text[])
             WITH ORDINALITY AS t(email, name, role, ord)
        JOIN users u ON u.email = t.email
       ORDER BY t.ord
          ON CONFLICT (community_id, user_id) DO NOTHING
      RETURNING id::text AS id`;
  }

  /**
   * Existing members of the batch (not those just `joined`): a given name or role changes the
   * membership only. The role ceiling is repeated in SQL so a member that appeared concurrently,
   * after the caller's checks, can still not get a new role if they rank above the caller (their
   * display name may still be set).
   */
  updateExisting(
    tx: Tx,
    communityId: string,
    columns: MemberColumns,
    ceiling: Role,
    joined: { id: string }[],
  ): Promise<{ id: string; previous_role: Role }[]> {
    return tx.$queryRaw<{ id: string; previous_role: Role }[]>`
      UPDATE memberships m
         SET role = CASE WHEN t.role IS NOT NULL AND m.role >= ${ceiling}::"Role"
                         THEN t.role::"Role" ELSE m.role END,
             display_name = coalesce(t.name, m.display_name),
             updated_at = now()
        FROM unnest(${columns.emails}::text[], ${columns.names}::text[], ${columns.roles}::text[])
               AS t(email, name, role),
             users u, memberships old
       WHERE u.email = t.email AND m.community_id = ${communityId}::uuid AND m.user_id = u.id
         AND old.id = m.id AND NOT (m.id = ANY(${joined.map((j) => j.id)}::uuid[]))
         AND ((t.role IS NOT NULL AND m.role <> t.role::"Role" AND m.role >= ${ceiling}::"Role")
              OR (t.name IS NOT NULL AND m.display_name <> t.name))
      RETURNING m.id::text AS id, old.role::text AS previous_role`;
  }

  /** The members with these e-mails, in the order given. */
  viewsByEmails(tx: Tx, communityId: string, emails: string[]): Promise<MemberView[]> {
    return tx.$queryRaw<MemberView[]>`
      SELECT ${MEMBER_COLUMNS}
        FROM unnest(${emails}::text[]) WITH ORDINALITY AS t(email, ord)
        JOIN users u ON u.email = t.email
        JOIN memberships m ON m.community_id = ${communityId}::uuid AND m.user_id = u.id
       ORDER BY t.ord`;
  }
}

/** The store alone, for modules that read memberships without the members' services (no import cycle). */
@Module({ providers: [MembershipsStore], exports: [MembershipsStore] })
export class MembershipsStoreModule {}
