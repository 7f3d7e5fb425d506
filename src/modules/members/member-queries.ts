import { Prisma } from '../../generated/prisma/client';
import type { Tx } from '../../prisma/prisma.service';
import { ISO } from '../../prisma/iso-text';

/**
 * Selects a MemberView from `memberships m JOIN users u` (the name is the membership's display
 * name): raw SQL rows come out in the same shape as toMemberView's, so there is no second mapper.
 */
export const MEMBER_COLUMNS = Prisma.sql`m.id::text AS id, m.user_id::text AS "userId", u.email, m.display_name AS name, m.role::text AS role, m.joined_at AS "joinedAt"`;

/** The same columns as plain SQL text for a named prepared statement (preparedQuery), `joinedAt` as ISO text (see ISO). */
export const MEMBER_PAGE_COLUMNS = `m.id::text AS id, m.user_id::text AS "userId", u.email, m.display_name AS name, m.role::text AS role, ${ISO('m.joined_at')} AS "joinedAt"`;

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
