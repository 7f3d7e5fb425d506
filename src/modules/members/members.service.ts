import { Injectable } from '@nestjs/common';
import { Errors } from '../../common/errors/app-error';
import type { TenantContext } from '../../common/http/request-context';
import { newestFirstPage } from '../../common/pagination/newest-first-page';
import { toPage, type Page } from '../../common/pagination/page-query.dto';
import { Prisma } from '../../generated/prisma/client';
import type { Role } from '../../generated/prisma/enums';
import { PrismaService } from '../../prisma/prisma.service';
import { OutboxService } from '../events/outbox.service';
import type { ListMembersQueryDto } from './dto/list-members.query';
import { lockOwnerIds, MEMBER_COLUMNS, MEMBERS_LIST, prefixPattern } from './member-queries';
import { MEMBER_SELECT, MemberView, toMemberView } from './member-view';
import { MembershipsService } from './memberships.service';
import { TenancyService } from '../tenancy/tenancy.service';
import { assertMayAssign, assertMayChange, assertOwnersRemain, roleCeiling } from './role-rules';
import { normaliseEmail } from '../../common/validation/email';

const NEWEST_FIRST = [{ joinedAt: 'desc' as const }, { id: 'desc' as const }];

/**
 * Listing members, changing a role, and adding one member, under the role rules of
 * docs/product-decisions.md#3-tenancy-roles-permissions-plans.
 */
@Injectable()
export class MembersService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly outbox: OutboxService,
    private readonly memberships: MembershipsService,
    private readonly tenancy: TenancyService,
  ) {}

  /**
   * Newest joined first. Unfiltered `total` is the trigger-kept counter; a filtered total is
   * counted over the filtered set, which an index narrows (role: (community_id, role); search:
   * the users lower(email) and memberships (community_id, lower(display_name)) prefix indexes).
   */
  async list(communityId: string, query: ListMembersQueryDto): Promise<Page<MemberView>> {
    const skip = (query.page - 1) * query.limit;
    if (query.search !== undefined) return this.search(communityId, query, skip);
    if (!query.role) return this.unfilteredPage(communityId, query);
    const where = { communityId, role: query.role };
    const [rows, total] = await Promise.all([
      this.prisma.membership.findMany({
        where,
        orderBy: NEWEST_FIRST,
        skip,
        take: query.limit,
        select: MEMBER_SELECT,
      }),
      this.prisma.membership.count({ where }),
    ]);
    return toPage(rows.map(toMemberView), query, total);
  }

  /** The unfiltered list, the hot one: the newest-first page of the members counter (MEMBERS_LIST). */
  private unfilteredPage(communityId: string, query: ListMembersQueryDto): Promise<Page<MemberView>> {
    return newestFirstPage<MemberView>(this.prisma, MEMBERS_LIST, communityId, query);
  }

  private async search(
    communityId: string,
    query: ListMembersQueryDto,
    skip: number,
  ): Promise<Page<MemberView>> {
    const pattern = prefixPattern(query.search ?? '');
    const where = Prisma.sql`
      m.community_id = ${communityId}::uuid
      ${query.role ? Prisma.sql`AND m.role = ${query.role}::"Role"` : Prisma.empty}
      AND (lower(u.email) LIKE ${pattern} OR lower(m.display_name) LIKE ${pattern})`;
    const [rows, counted] = await Promise.all([
      this.prisma.$queryRaw<MemberView[]>`
        SELECT ${MEMBER_COLUMNS} FROM memberships m JOIN users u ON u.id = m.user_id
         WHERE ${where}
         ORDER BY m.joined_at DESC, m.id DESC
         LIMIT ${query.limit} OFFSET ${skip}`,
      this.prisma.$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM memberships m JOIN users u ON u.id = m.user_id WHERE ${where}`,
    ]);
    return toPage(rows, query, counted[0]?.n ?? 0);
  }

  /** PATCH /members/:id/role. An unchanged role answers the member and records no event. */
  async changeRole(tenant: TenantContext, membershipId: string, role: Role): Promise<MemberView> {
    const ceiling = roleCeiling(tenant.role);
    assertMayAssign(ceiling, role);
    const result = await this.prisma.$transaction(async (tx) => {
      const owners = await lockOwnerIds(tx, tenant.communityId);
      const current = await tx.membership.findUnique({
        where: { communityId_id: { communityId: tenant.communityId, id: membershipId } },
        select: { role: true },
      });
      if (!current) throw Errors.notFound('Member');
      assertMayChange(ceiling, current.role);
      if (current.role === role) {
        return toMemberView(
          await tx.membership.findUniqueOrThrow({ where: { id: membershipId }, select: MEMBER_SELECT }),
        );
      }
      if (current.role === 'OWNER') assertOwnersRemain(owners.length - 1);
      const member = toMemberView(
        await tx.membership.update({
          where: { communityId_id: { communityId: tenant.communityId, id: membershipId } },
          data: { role },
          select: MEMBER_SELECT,
        }),
      );
      await this.outbox.record(tx, tenant.communityId, 'member.updated', {
        member,
        previousRole: current.role,
      });
      return member;
    });
    // every API instance forgets the roles it holds in memory for this community
    await this.tenancy.membershipChanged(tenant.communityId);
    return result;
  }

  /** POST /members: one member through MembershipsService.addMember, under the same role rules. */
  async add(
    tenant: TenantContext,
    input: { email: string; name?: string; role?: Role },
  ): Promise<MemberView & { created: boolean }> {
    const ceiling = roleCeiling(tenant.role);
    if (input.role) assertMayAssign(ceiling, input.role);
    const result = await this.prisma.$transaction(async (tx) => {
      const owners = await lockOwnerIds(tx, tenant.communityId);
      const existing = await tx.membership.findFirst({
        where: { communityId: tenant.communityId, user: { email: normaliseEmail(input.email) } },
        select: { role: true },
      });
      if (existing && input.role && input.role !== existing.role) {
        assertMayChange(ceiling, existing.role);
        if (existing.role === 'OWNER') assertOwnersRemain(owners.length - 1);
      }
      const { member, created } = await this.memberships.addMember(tenant.communityId, input, tx);
      return { ...member, created };
    });
    // every API instance forgets the roles it holds in memory for this community
    await this.tenancy.membershipChanged(tenant.communityId);
    return result;
  }
}
