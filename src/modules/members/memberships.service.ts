import { Injectable } from '@nestjs/common';
import type { Role } from '../../generated/prisma/enums';
import { PrismaService, Tx } from '../../prisma/prisma.service';
import { OutboxService } from '../events/outbox.service';

export interface MemberView {
  id: string;
  userId: string;
  email: string;
  name: string;
  role: Role;
  joinedAt: Date;
}

export const MEMBER_SELECT = {
  id: true,
  userId: true,
  role: true,
  joinedAt: true,
  user: { select: { email: true, name: true } },
} as const;

export function toMemberView(row: {
  id: string;
  userId: string;
  role: Role;
  joinedAt: Date;
  user: { email: string; name: string };
}): MemberView {
  return {
    id: row.id,
    userId: row.userId,
    email: row.user.email,
    name: row.user.name,
    role: row.role,
    joinedAt: row.joinedAt,
  };
}

/** Adding one member (used by the CLI, community creation and POST /api/sdk/members). */
@Injectable()
export class MembershipsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly outbox: OutboxService,
  ) {}

  /**
   * Joins the user with this e-mail to the community, creating a password-less user if needed.
   * An existing member keeps their membership; their role changes only when one is given.
   */
  async addMember(
    communityId: string,
    input: { email: string; name?: string; role?: Role },
    tx?: Tx,
  ): Promise<{ member: MemberView; created: boolean }> {
    const run = async (db: Tx) => {
      const email = input.email.trim().toLowerCase();
      const before = await db.user.findUnique({
        where: { email },
        select: { id: true, name: true, memberships: { where: { communityId }, select: { role: true } } },
      });
      const previousRole = before?.memberships[0]?.role;
      const user = await db.user.upsert({
        where: { email },
        create: { email, name: input.name ?? '' },
        update: input.name !== undefined ? { name: input.name } : {},
        select: { id: true },
      });
      const row = await db.membership.upsert({
        where: { communityId_userId: { communityId, userId: user.id } },
        create: { communityId, userId: user.id, role: input.role ?? 'MEMBER' },
        update: input.role ? { role: input.role } : {},
        select: MEMBER_SELECT,
      });
      const member = toMemberView(row);
      const created = previousRole === undefined;
      // An event only for a real change: re-adding a member with the same name and role is a no-op.
      const changed = !created && (member.role !== previousRole || member.name !== before?.name);
      if (created) await this.outbox.record(db, communityId, 'member.joined', { member });
      else if (changed) await this.outbox.record(db, communityId, 'member.updated', { member, previousRole });
      return { member, created };
    };
    return tx ? run(tx) : this.prisma.$transaction(run);
  }
}
