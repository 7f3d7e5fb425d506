import type { Role } from '../../generated/prisma/enums';

/**
 * A member as the API and the member events show it. Its own file, importing nothing of the
 * members' services: the event payload types need it, and the services raise those events.
 */
export interface MemberView {
  id: string;
  userId: string;
  email: string;
  /** the membership's display name in this community (never the account's name) */
  name: string;
  role: Role;
  joinedAt: Date;
}

export const MEMBER_SELECT = {
  id: true,
  userId: true,
  role: true,
  displayName: true,
  joinedAt: true,
  user: { select: { email: true } },
} as const;

export function toMemberView(row: {
  id: string;
  userId: string;
  role: Role;
  displayName: string;
  joinedAt: Date;
  user: { email: string };
}): MemberView {
  return {
    id: row.id,
    userId: row.userId,
    email: row.user.email,
    name: row.displayName,
    role: row.role,
    joinedAt: row.joinedAt,
  };
}
