import { Injectable } from '@nestjs/common';
import { Errors, ValidationDetail } from '../../common/errors/app-error';
import type { TenantContext } from '../../common/http/request-context';
import type { Role } from '../../generated/prisma/enums';
import { PrismaService, Tx } from '../../prisma/prisma.service';
import { OutboxService } from '../events/outbox.service';
import { TenancyService } from '../tenancy/tenancy.service';
import type { EventData } from '../events/event-catalog';
import type { MemberInputDto } from './dto/member-input.dto';
import { lockOwnerIds, MEMBER_COLUMNS } from './member-queries';
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
interface Columns {
  emails: string[];
  names: (string | null)[];
  roles: (Role | null)[];
}

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
        const owners = await lockOwnerIds(tx, communityId);
        const before = await this.lockExisting(tx, communityId, columns.emails);
        this.checkRoleRules(ceiling, owners.length, columns, before);

        // New e-mails become password-less users named with the name sent; an existing account is
        // never changed (DO NOTHING), whichever community it belongs to.
        await tx.$executeRaw`
          INSERT INTO users (id, email, name, created_at, updated_at)
          SELECT gen_random_uuid(), t.email, coalesce(t.name, ''), now(), now()
            FROM unnest(${columns.emails}::text[], ${columns.names}::text[]) AS t(email, name)
              ON CONFLICT (email) DO NOTHING`;
        // The display name is the name sent, else empty: never the account's, which is not ours to show.
        const joined = await tx.$queryRaw<{ id: string }[]>`
          INSERT INTO memberships (id, community_id, user_id, role, display_name, joined_at, updated_at)
          SELECT gen_random_uuid(), ${communityId}::uuid, u.id, coalesce(t.role, 'MEMBER')::"Role",
                 coalesce(t.name, ''), now(), now()
            FROM unnest(${columns.emails}::text[], ${columns.names}::text[], ${columns.roles}::text[])
                 WITH ORDINALITY AS t(email, name, role, ord)
            JOIN users u ON u.email = t.email
           ORDER BY t.ord
              ON CONFLICT (community_id, user_id) DO NOTHING
          RETURNING id::text AS id`;
        // Existing members: a given name or role changes the membership only. The role ceiling is
        // repeated in SQL so a member that appeared concurrently, after the checks above, can still
        // not get a new role if they rank above the caller (their display name may still be set).
        const updated = await tx.$queryRaw<{ id: string; previous_role: Role }[]>`
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

        const rows = await tx.$queryRaw<MemberView[]>`
          SELECT ${MEMBER_COLUMNS}
            FROM unnest(${columns.emails}::text[]) WITH ORDINALITY AS t(email, ord)
            JOIN users u ON u.email = t.email
            JOIN memberships m ON m.community_id = ${communityId}::uuid AND m.user_id = u.id
           ORDER BY t.ord`;
        const members = rows;
        return this.recordEvents(tx, communityId, members, joined, updated);
      },
      { timeout: 30_000 },
    );
    // every API instance forgets the roles it holds in memory for this community
    await this.tenancy.membershipChanged(communityId);
    return result;
  }

  /** Current memberships of the request's e-mails, locked so the checks below stay true until commit. */
  private async lockExisting(tx: Tx, communityId: string, emails: string[]): Promise<Map<string, Role>> {
    const rows = await tx.$queryRaw<{ email: string; role: Role }[]>`
      SELECT u.email, m.role::text AS role
        FROM memberships m JOIN users u ON u.id = m.user_id
       WHERE m.community_id = ${communityId}::uuid AND u.email = ANY(${emails}::text[])
       ORDER BY m.id
         FOR UPDATE OF m`;
    return new Map(rows.map((r) => [r.email, r.role]));
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
