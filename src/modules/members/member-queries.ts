import { Prisma } from '../../generated/prisma/client';
import type { Tx } from '../../prisma/prisma.service';
import { ISO } from '../../prisma/iso-text';
import type { NewestFirstList } from '../../common/pagination/newest-first-page';

/**
 * Selects a MemberView from `memberships m JOIN users u` (the name is the membership's display
 * name): raw SQL rows come out in the same shape as toMemberView's, so there is no second mapper.
 */
export const MEMBER_COLUMNS = Prisma.sql`m.id::text AS id, m.user_id::text AS "userId", u.email, m.display_name AS name, m.role::text AS role, m.joined_at AS "joinedAt"`;

/**
 * The unfiltered members list: memberships are counted under `members`, newest joined first from
 * the (community_id, joined_at DESC, id DESC) index; the columns are MEMBER_COLUMNS as plain SQL
 * text for the prepared statement, `joinedAt` as ISO text (see ISO).
 */
export const MEMBERS_LIST: NewestFirstList = {
  statement: 'members-page',
  counterScope: 'members',
  from: 'memberships m JOIN users u ON u.id = m.user_id',
  communityColumn: 'm.community_id',
  newestFirst: 'm.joined_at DESC, m.id DESC',
  columns: `m.id::text AS id, m.user_id::text AS "userId", u.email, m.display_name AS name, m.role::text AS role, ${ISO('m.joined_at')} AS "joinedAt"`,
};

/**
 * Locks the community's OWNER memberships for the rest of the transaction and returns their ids.
 * Every role change that could remove an OWNER takes this lock first, so two concurrent demotions
 * serialise and the second one sees the first one's result (the last OWNER always stays).
 */
export async function lockOwnerIds(tx: Tx, communityId: string): Promise<string[]> {
  const rows = await tx.$queryRaw<{ id: string }[]>`
    SELECT id::text AS id FROM memberships
     WHERE community_id = ${communityId}::uuid AND role = 'OWNER'
     ORDER BY id
       FOR UPDATE`;
  return rows.map((r) => r.id);
}

/** LIKE pattern for a case-insensitive prefix: the user's text is matched literally. */
export function prefixPattern(search: string): string {
  return `${search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
