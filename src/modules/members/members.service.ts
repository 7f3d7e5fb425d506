import type { JsonText } from '../../common/http/json-text';
import { Injectable } from '@nestjs/common';
import { Errors } from '../../common/errors/app-error';
import type { TenantContext } from '../../common/http/request-context';
import { toPage, type Page } from '../../common/pagination/page-query.dto';
import type { Role } from '../../generated/prisma/enums';
import { PrismaService } from '../../prisma/prisma.service';
import { OutboxService } from '../events/outbox.service';
import type { ListMembersQueryDto } from './dto/list-members.query';
import type { MemberView } from './member-view';
import { MembershipsStore } from './memberships.store';
import { MembershipsService } from './memberships.service';
import { TenancyService } from '../tenancy/tenancy.service';
import { assertMayAssign, assertMayChange, assertOwnersRemain, roleCeiling } from './role-rules';
import { normaliseEmail } from '../../common/validation/email';

/**
 * Listing members, changing a role, and adding one member, under the role rules of
 * docs/product-decisions.md#3-tenancy-roles-permissions-plans.
 */
@Injectable()
export class MembersService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly store: MembershipsStore,
    private readonly outbox: OutboxService,
    private readonly memberships: MembershipsService,
    private readonly tenancy: TenancyService,
  ) {}

  /**
   * Newest joined first. Unfiltered `total` is the trigger-kept counter; a filtered total is
   * counted over the filtered set, which an index narrows (role: (community_id, role); search:
   * the users lower(email) and memberships (community_id, lower(display_name)) prefix indexes).
   */
  async list(
    communityId: string,
    query: ListMembersQueryDto,
  ): Promise<Page<MemberView> | JsonText<Page<MemberView>>> {
    const skip = (query.page - 1) * query.limit;
    if (query.search !== undefined) {
      const { rows, total } = await this.store.search(
        communityId,
        { search: query.search, role: query.role },
        skip,
        query.limit,
      );
      return toPage(rows, query, total);
    }
    // the unfiltered list, the hot one: the newest-first page of the members counter
    if (!query.role) return this.store.page(communityId, query);
    const { rows, total } = await this.store.pageWithRole(communityId, query.role, skip, query.limit);
    return toPage(rows, query, total);
  }

  /** PATCH /members/:id/role. An unchanged role answers the member and records no event. */
  async changeRole(tenant: TenantContext, membershipId: string, role: Role): Promise<MemberView> {
    const ceiling = roleCeiling(tenant.role);
    assertMayAssign(ceiling, role);
    const result = await this.prisma.$transaction(async (tx) => {
      const owners = await this.store.lockOwnerIds(tx, tenant.communityId);
      const current = await this.store.findInCommunity(tx, tenant.communityId, membershipId);
      if (!current) throw Errors.notFound('Member');
      assertMayChange(ceiling, current.role);
      if (current.role === role) {
        return this.store.findView(tx, membershipId);
      }
      if (current.role === 'OWNER') assertOwnersRemain(owners.length - 1);
      const member = await this.store.setRole(tx, tenant.communityId, membershipId, role);
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
      const owners = await this.store.lockOwnerIds(tx, tenant.communityId);
      const existing = await this.store.findByEmail(tx, tenant.communityId, normaliseEmail(input.email));
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
