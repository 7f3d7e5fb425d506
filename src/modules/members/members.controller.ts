import { Body, Controller, Get, HttpStatus, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AllowApiKey, RequireFeature, RequirePermission } from '../../common/decorators/auth.decorators';
import { CurrentTenant } from '../../common/decorators/request.decorators';
import { ApiEndpoint } from '../../common/http/api-docs';
import { IdParamDto } from '../../common/http/id-param.dto';
import type { TenantContext } from '../../common/http/request-context';
import { AddMemberDto } from './dto/add-member.dto';
import { BulkMembersDto, MAX_BULK_MEMBERS_BODY_KEYS } from './dto/bulk-members.dto';
import { BodyKeyLimit } from '../../common/http/input-safety';
import { ChangeRoleDto } from './dto/change-role.dto';
import { ListMembersQueryDto } from './dto/list-members.query';
import { AddedMemberDto, BulkMembersResultDto, MemberDto } from './dto/responses.dto';
import { MembersBulkService } from './members-bulk.service';
import { MembersService } from './members.service';

const ROLE_RULES =
  'Nobody gives a role above their own, nor changes the role of a member ranked above them (403 FORBIDDEN). ' +
  'Demoting the last OWNER is refused with 409 CONFLICT.';

@ApiTags('members')
@Controller('sdk/members')
@AllowApiKey()
@RequireFeature('members')
export class MembersController {
  constructor(
    private readonly members: MembersService,
    private readonly bulk: MembersBulkService,
  ) {}

  @Get()
  @ApiEndpoint({
    summary: 'List members, newest joined first',
    description:
      '`role` filters by role; `search` is a case-insensitive prefix of the e-mail or the display name. ' +
      'Unfiltered `total` is a counter kept by the database; a filtered `total` is counted over the filtered set.',
    auth: 'jwt-or-api-key',
    response: MemberDto,
    paged: true,
    errors: [403],
  })
  list(@Query() query: ListMembersQueryDto, @CurrentTenant() tenant: TenantContext) {
    return this.members.list(tenant.communityId, query);
  }

  @Post()
  @RequirePermission('MEMBERS_MANAGE')
  @ApiEndpoint({
    summary: 'Add one member by e-mail (extension); an existing member gets the given name/role',
    description:
      'Creates a password-less user when the e-mail is unknown. `name` is the display name in this ' +
      'community (empty when omitted for a new member); a user account is never changed, and the answer ' +
      `is the same whether or not the e-mail already had an account. ${ROLE_RULES}`,
    auth: 'jwt-or-api-key',
    response: AddedMemberDto,
    status: HttpStatus.CREATED,
    errors: [403, 409],
  })
  add(@Body() dto: AddMemberDto, @CurrentTenant() tenant: TenantContext) {
    return this.members.add(tenant, { email: dto.email, name: dto.name, role: dto.role });
  }

  @Post('bulk')
  @BodyKeyLimit(MAX_BULK_MEMBERS_BODY_KEYS)
  @RequireFeature('members_bulk')
  @RequirePermission('MEMBERS_MANAGE')
  @ApiEndpoint({
    summary: 'Create or update 1–1000 members in one transaction',
    description:
      'Unknown e-mails become password-less users; existing members get the given display name and role ' +
      '(an omitted name or role is kept; user accounts are never changed). `created`/`updated` count ' +
      'memberships. All or nothing: a repeated e-mail (400, naming the entry), ' +
      `a role rule (403, naming the entry) or the last OWNER (409) refuses the whole request. ${ROLE_RULES}`,
    auth: 'jwt-or-api-key',
    response: BulkMembersResultDto,
    errors: [403, 409],
  })
  upsert(@Body() dto: BulkMembersDto, @CurrentTenant() tenant: TenantContext) {
    return this.bulk.upsert(tenant, dto.members);
  }

  @Patch(':id/role')
  @RequirePermission('MEMBERS_MANAGE')
  @ApiEndpoint({
    summary: "Set a member's role",
    description: ROLE_RULES,
    auth: 'jwt-or-api-key',
    response: MemberDto,
    errors: [403, 404, 409],
  })
  changeRole(
    @Param() params: IdParamDto,
    @Body() dto: ChangeRoleDto,
    @CurrentTenant() tenant: TenantContext,
  ) {
    return this.members.changeRole(tenant, params.id, dto.role);
  }
}
