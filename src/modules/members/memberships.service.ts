import type { Role } from '../../generated/prisma/enums';
import { Injectable } from '@nestjs/common';
import { PrismaService, Tx } from '../../prisma/prisma.service';
import { OutboxService } from '../events/outbox.service';
import { UsersStore } from '../auth/users.store';
import type { MemberView } from './member-view';
import { MembershipsStore } from './memberships.store';
import { normaliseEmail } from '../../common/validation/email';

export interface MemberInput {
  email: string;
  /** the display name in this community; omitted keeps an existing member's one ('' for a new one) */
  name?: string;
  role?: Role;
  /**
   * The account holder joins by their own act (creating a community): their account's name becomes
   * the display name. Never set on behalf of a community adding someone else.
   */
  ownAccount?: boolean;
}

/** Adding one member (used by the CLI, community creation and POST /api/sdk/members). */
@Injectable()
export class MembershipsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly store: MembershipsStore,
    private readonly users: UsersStore,
    private readonly outbox: OutboxService,
  ) {}

  /**
   * Joins the user with this e-mail to the community, creating a password-less user (named with
   * the name sent) if there is none. An existing user account is never changed, and the answer is
   * built only from the membership and what the caller sent, so it is the same whether or not the
   * account existed (nothing to probe). An existing member keeps their membership; their display
   * name and role change only when given.
   */
  async addMember(
    communityId: string,
    input: MemberInput,
    tx?: Tx,
  ): Promise<{ member: MemberView; created: boolean }> {
    const run = async (db: Tx) => {
      const email = normaliseEmail(input.email);
      // an existing account is left exactly as it is (UsersStore.insertMissing)
      await this.users.insertMissing(db, [email], [input.name ?? '']);
      const user = (await this.users.findByEmail(email, db))!;
      const displayName = input.name ?? (input.ownAccount ? user.name : undefined);
      const before = await this.store.findByUser(db, communityId, user.id);
      const member = await this.store.upsert(
        db,
        communityId,
        user.id,
        { role: input.role ?? 'MEMBER', displayName: displayName ?? '' },
        {
          ...(input.role ? { role: input.role } : {}),
          ...(displayName !== undefined ? { displayName } : {}),
        },
      );
      const created = before === null;
      // An event only for a real change: re-adding a member with the same name and role is a no-op.
      const changed = !created && (member.role !== before.role || member.name !== before.displayName);
      if (created) await this.outbox.record(db, communityId, 'member.joined', { member });
      else if (changed) {
        await this.outbox.record(db, communityId, 'member.updated', { member, previousRole: before.role });
      }
      return { member, created };
    };
    return tx ? run(tx) : this.prisma.$transaction(run);
  }

  /** The community's first OWNER (earliest joined): whom a key made without a member acts as. */
  async firstOwner(communityId: string): Promise<{ id: string; email: string } | null> {
    return this.store.firstOwner(communityId);
  }
}
