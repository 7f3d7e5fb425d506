import { Injectable } from '@nestjs/common';
import { Errors, ValidationDetail } from '../../common/errors/app-error';
import type { TenantContext } from '../../common/http/request-context';
import type { Role } from '../../generated/prisma/enums';
import { PrismaService, Tx } from '../../prisma/prisma.service';
import { OutboxService } from '../events/outbox.service';
import { TenancyService } from '../tenancy/tenancy.service';
import type { EventData } from '../events/event-catalog';
import type { MemberInputDto } from './dto/member-input.dto';
import { UsersStore } from '../auth/users.store';
import { MemberColumns, MembershipsStore } from './memberships.store';
import type { MemberView } from './member-view';
import { assertMayAssign, assertMayChange, assertOwnersRemain, roleCeiling } from './role-rules';
import { normaliseEmail } from '../../common/validation/email';

export interface BulkResult {
  created: number;
  updated: number;
  unchanged: number;
  members: MemberView[];
}

/** The request as parallel arrays (one per column), the shape `unnest` takes. */
type Columns = MemberColumns;

function toColumns(entries: MemberInputDto[]): Columns {
  const emails = entries.map((e) => normaliseEmail(e.email));
  const firstIndex = new Map<string, number>();
  const duplicates: ValidationDetail[] = [];
  emails.forEach((email, i) => {
    const first = firstIndex.get(email);
    if (first === undefined) firstIndex.set(email, i);
    else
      duplicates.push({
        field: `members.${i}.email`,
        message: `members.${i}.email repeats members.${first}.email`,
      });
  });
  if (duplicates.length) throw Errors.validation(duplicates);
  return { emails, names: entries.map((e) => e.name ?? null), roles: entries.map((e) => e.role ?? null) };
}

/**
 * POST /members/bulk: up to 1000 members in one transaction and a fixed number of set-based
 * statements (no statement per member). Any refusal rolls everything back, events included.
 */
@Injectable()
export class MembersBulkService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly store: MembershipsStore,
    private readonly users: UsersStore,
    private readonly outbox: OutboxService,
    private readonly tenancy: TenancyService,
  ) {}

  async upsert(tenant: TenantContext, entries: MemberInputDto[]): Promise<BulkResult> {
    const columns = toColumns(entries);
    const ceiling = roleCeiling(tenant.role);
    columns.roles.forEach((role, i) => role && assertMayAssign(ceiling, role, `members.${i}.role`));
    const communityId = tenant.communityId;

    const result = await this.prisma.$transaction(
      async (tx) => {
        const owners = await this.store.lockOwnerIds(tx, communityId);
        const before = await this.store.lockByEmails(tx, communityId, columns.emails);
        this.checkRoleRules(ceiling, owners.length, columns, before);

        // New e-mails become password-less users named with the name sent; an existing account is
        // never changed, whichever community it belongs to.
        await this.users.insertMissing(tx, columns.emails, columns.names);
        const joined = await this.store.joinMissing(tx, communityId, columns);
        const updated = await this.store.updateExisting(tx, communityId, columns, ceiling, joined);
        const rows = await this.store.viewsByEmails(tx, communityId, columns.emails);
        const members = rows;
        return this.recordEvents(tx, communityId, members, joined, updated);
      },
      { timeout: 30_000 },
    );
    // every API instance forgets the roles it holds in memory for this community
    await this.tenancy.membershipChanged(communityId);
    return result;
  }

  /** Role ceiling for existing members, and at least one OWNER left once every entry applies. */
  private checkRoleRules(
    ceiling: Role,
    ownerCount: number,
    columns: Columns,
    before: Map<string, Role>,
  ): void {
    let owners = ownerCount;
    columns.emails.forEach((email, i) => {
      const role = columns.roles[i];
      const current = before.get(email);
      if (!role || role === current) return;
      if (current) assertMayChange(ceiling, current, `members.${i}`);
      if (current === 'OWNER') owners -= 1;
      if (role === 'OWNER') owners += 1;
    });
    assertOwnersRemain(owners);
  }

  private async recordEvents(
    tx: Tx,
    communityId: string,
    members: MemberView[],
    joined: { id: string }[],
    updated: { id: string; previous_role: Role }[],
  ): Promise<BulkResult> {
    const joinedIds = new Set(joined.map((j) => j.id));
    const previousRoles = new Map(updated.map((r) => [r.id, r.previous_role]));
    const joinedEvents: EventData<'member.joined'>[] = [];
    const updatedEvents: EventData<'member.updated'>[] = [];
    for (const member of members) {
      if (joinedIds.has(member.id)) joinedEvents.push({ member });
      else {
        const previousRole = previousRoles.get(member.id);
        if (previousRole) updatedEvents.push({ member, previousRole });
      }
    }
    await this.outbox.recordMany(tx, communityId, 'member.joined', joinedEvents);
    await this.outbox.recordMany(tx, communityId, 'member.updated', updatedEvents);
    return {
      created: joinedEvents.length,
      updated: updatedEvents.length,
      unchanged: members.length - joinedEvents.length - updatedEvents.length,
      members,
    };
  }
}
