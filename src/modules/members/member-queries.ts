import { Prisma } from '../../generated/prisma/client';
import type { Role } from '../../generated/prisma/enums';
import type { Tx } from '../../prisma/prisma.service';
import type { MemberView } from './memberships.service';

/** A member row as raw SQL returns it (see MEMBER_COLUMNS). */
export interface MemberRow {
  id: string;
  user_id: string;
  email: string;
  name: string;
  role: Role;
  joined_at: Date;
}

/** Selects a MemberRow from `memberships m JOIN users u`: the name is the membership's display name. */
export const MEMBER_COLUMNS = Prisma.sql`m.id::text AS id, m.user_id::text AS user_id, u.email, m.display_name AS name, m.role::text AS role, m.joined_at`;

export function rowToMemberView(row: MemberRow): MemberView {
  return {
    id: row.id,
    userId: row.user_id,
    email: row.email,
    name: row.name,
    role: row.role,
    joinedAt: row.joined_at,
  };
}

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
