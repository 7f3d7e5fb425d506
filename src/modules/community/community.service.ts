import { Injectable } from '@nestjs/common';
import { hasFeature } from '../../common/access/plans';
import { Errors } from '../../common/errors/app-error';
import type { TenantContext } from '../../common/http/request-context';
import { AppConfig } from '../../config/app-config';
import { Prisma } from '../../generated/prisma/client';
import { PrismaService } from '../../prisma/prisma.service';
import { CommunitiesStore, CommunityColumns, CommunityRow } from './communities.store';
import { OutboxService } from '../events/outbox.service';
import { TenancyService } from '../tenancy/tenancy.service';
import type { CommunityField } from './community.events';
import { challengeRecord, DnsLookupError, DnsTxtLookup, newChallengeToken } from './domain-challenge';
import type { BrandingDto, CustomDomainPendingDto, SdkCommunityDto, SettingsDto } from './dto/community.dto';
import type { UpdateBrandingDto } from './dto/update-branding.dto';
import type { UpdateSettingsDto } from './dto/update-settings.dto';

type Columns = CommunityColumns;
type Patch = Partial<
  Pick<CommunityRow, keyof BrandingDto | Exclude<keyof SettingsDto, 'customDomainPending'>>
>;

/** The pending-domain columns all read as one field, `customDomainPending`, in views and events. */
const PENDING_COLUMNS = new Set(['customDomainPending', 'customDomainToken', 'customDomainRequestedAt']);
const NO_PENDING = { customDomainPending: null, customDomainToken: null, customDomainRequestedAt: null };

function pendingOf(row: CommunityRow): CustomDomainPendingDto | null {
  const { customDomainPending: domain, customDomainToken: token, customDomainRequestedAt } = row;
  if (!domain || !token || !customDomainRequestedAt) return null;
  return { domain, txtRecord: challengeRecord(domain, token), requestedAt: customDomainRequestedAt };
}

function toView(row: CommunityRow): SdkCommunityDto {
  const {
    logoUrl,
    faviconUrl,
    primaryColor,
    accentColor,
    customDomainPending: _domain,
    customDomainToken: _token,
    customDomainRequestedAt: _requestedAt,
    ...rest
  } = row;
  return {
    ...rest,
    customDomainPending: pendingOf(row),
    branding: { logoUrl, faviconUrl, primaryColor, accentColor },
  };
}

function settingsOf(view: SdkCommunityDto): SettingsDto {
  const { name, description, visibility, allowMemberPosts, customDomain, customDomainPending } = view;
  const { portalAllowedOrigins } = view;
  return {
    name,
    description,
    visibility,
    allowMemberPosts,
    customDomain,
    customDomainPending,
    portalAllowedOrigins,
  };
}

/** The fields a PATCH body sets: everything but the tenant field, undefined meaning "leave it". */
function patchOf(dto: UpdateSettingsDto | UpdateBrandingDto): Patch {
  const { communityId: _tenant, ...fields } = dto;
  const patch = Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== undefined),
  ) as Patch;
  if (Object.keys(patch).length === 0) throw Errors.badRequest('Send at least one field to change', 'body');
  return patch;
}

function same(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  // a list (portalAllowedOrigins) is unchanged when it holds the same values in the same order
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => v === b[i]);
  return a === b;
}

/**
 * What a requested customDomain writes. The active domain keeps serving until a new one is verified,
 * so a pending change never takes a working domain offline; null removes both.
 */
function domainColumns(before: CommunityRow, requested: string | null): Columns {
  if (requested === null) return { customDomain: null, ...NO_PENDING };
  // Asking for the active domain again cancels a pending change.
  if (requested === before.customDomain) return NO_PENDING;
  // The same pending domain keeps its token, so a record already published stays valid.
  if (requested === before.customDomainPending) return {};
  return {
    customDomainPending: requested,
    customDomainToken: newChallengeToken(),
    customDomainRequestedAt: new Date(),
  };
}

@Injectable()
export class CommunityService {
  private readonly serviceHostnames: ReadonlySet<string>;

  constructor(
    private readonly prisma: PrismaService,
    private readonly communities: CommunitiesStore,
    private readonly outbox: OutboxService,
    config: AppConfig,
    private readonly dns: DnsTxtLookup,
    private readonly tenancy: TenancyService,
  ) {
    this.serviceHostnames = new Set(config.serviceHostnames);
  }

  async get(communityId: string): Promise<SdkCommunityDto> {
    const row = await this.communities.find(communityId);
    return toView(row);
  }

  async settings(communityId: string): Promise<SettingsDto> {
    return settingsOf(await this.get(communityId));
  }

  async updateSettings(tenant: TenantContext, dto: UpdateSettingsDto): Promise<SettingsDto> {
    const { customDomain, ...fields } = patchOf(dto);
    if (customDomain) await this.assertDomainRequestable(tenant, customDomain);
    const view = await this.apply(tenant.communityId, (before) => ({
      ...fields,
      ...(customDomain === undefined ? {} : domainColumns(before, customDomain)),
    }));
    return settingsOf(view);
  }

  async updateBranding(tenant: TenantContext, dto: UpdateBrandingDto): Promise<BrandingDto> {
    const patch = patchOf(dto);
    return (await this.apply(tenant.communityId, () => patch)).branding;
  }

  /**
   * Activates the pending domain once its TXT record carries this community's token: proof that
   * whoever asked for the domain controls its DNS. A missing or wrong record is a 400 saying what
   * to publish; a domain another community has active is 409.
   */
  async verifyDomain(tenant: TenantContext): Promise<SettingsDto> {
    const row = await this.communities.find(tenant.communityId);
    const pending = pendingOf(row);
    if (!pending) {
      throw Errors.badRequest(
        'There is no pending custom domain to verify: request one with PATCH /api/sdk/community/settings first',
        'customDomain',
      );
    }
    this.assertNotServiceHostname(pending.domain);
    await this.assertNotActiveElsewhere(tenant.communityId, pending.domain);
    const { name, value } = pending.txtRecord;
    let found: string[];
    try {
      found = await this.dns.txt(name);
    } catch (err) {
      if (!(err instanceof DnsLookupError)) throw err;
      throw Errors.badRequest(
        `The TXT record ${name} could not be looked up (${err.code}); try again later`,
        'customDomain',
      );
    }
    if (found.length === 0) {
      throw Errors.badRequest(
        `No TXT record found at ${name}: publish ${name} TXT "${value}" and verify again ` +
          '(new DNS records can take a while to be visible)',
        'customDomain',
      );
    }
    if (!found.includes(value)) {
      throw Errors.badRequest(
        `The TXT records at ${name} do not include "${value}": publish it and verify again`,
        'customDomain',
      );
    }
    return settingsOf(await this.activate(tenant.communityId, pending.domain, row.customDomainToken));
  }

  /**
   * Marks a community's pending domain verified without a DNS check (the operator's
   * `community:verify-domain`); the service's own names and another community's domain stay refused.
   */
  async markDomainVerified(communityId: string): Promise<SettingsDto> {
    const row = await this.communities.find(communityId);
    if (!row.customDomainPending) {
      throw Errors.badRequest('The community has no pending custom domain', 'customDomain');
    }
    this.assertNotServiceHostname(row.customDomainPending);
    await this.assertNotActiveElsewhere(communityId, row.customDomainPending);
    return settingsOf(await this.activate(communityId, row.customDomainPending, row.customDomainToken));
  }

  /** Makes `domain` the active one, provided it is still the pending one with the token that was checked. */
  private async activate(
    communityId: string,
    domain: string,
    token: string | null,
  ): Promise<SdkCommunityDto> {
    try {
      return await this.apply(communityId, (before) => {
        if (before.customDomainPending !== domain || before.customDomainToken !== token) {
          throw Errors.conflict(
            'The pending custom domain changed while it was being verified; verify again',
          );
        }
        return { customDomain: domain, ...NO_PENDING };
      });
    } catch (err) {
      // Another community activated the same domain between our check and the write.
      if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') {
        throw Errors.conflict(`The custom domain '${domain}' is used by another community`);
      }
      throw err;
    }
  }

  /**
   * Writes what `change` computes from the current row and, when a value actually changed,
   * `community.updated` (the community after the change and the names of the changed fields) in
   * the same transaction.
   */
  private async apply(
    communityId: string,
    change: (before: CommunityRow) => Columns,
  ): Promise<SdkCommunityDto> {
    const domains: (string | null)[] = [];
    const view = await this.prisma.$transaction(async (tx) => {
      const before = await this.communities.find(communityId, tx);
      const columns = change(before);
      const changedColumns = (Object.keys(columns) as (keyof Columns)[]).filter(
        (column) => !same(columns[column], before[column]),
      );
      if (changedColumns.length === 0) return toView(before);
      domains.push(before.customDomain);
      const after = await this.communities.update(tx, communityId, columns);
      const community = toView(after);
      // the pending-domain columns are the only ones not named as they are in the view
      const changed = [
        ...new Set(changedColumns.map((c) => (PENDING_COLUMNS.has(c) ? 'customDomainPending' : c))),
      ] as CommunityField[];
      await this.outbox.record(tx, communityId, 'community.updated', { community, changed });
      domains.push(after.customDomain);
      return community;
    });
    // every API instance forgets what it holds in memory about the community and its old and new domain
    if (domains.length > 0) await this.tenancy.communityChanged(communityId, domains);
    return view;
  }

  /** Requesting a domain needs the plan feature; removing one (null) never does. */
  private async assertDomainRequestable(tenant: TenantContext, domain: string): Promise<void> {
    if (!hasFeature(tenant.community.plan, tenant.community.featureOverrides, 'custom_domain')) {
      throw Errors.featureNotAvailable('custom_domain');
    }
    this.assertNotServiceHostname(domain);
    await this.assertNotActiveElsewhere(tenant.communityId, domain);
  }

  /** A name the service answers on would let a community capture every request made through it. */
  private assertNotServiceHostname(domain: string): void {
    if (this.serviceHostnames.has(domain)) {
      throw Errors.badRequest(
        "customDomain cannot be one of the service's own hostnames (SERVICE_HOSTNAMES)",
        'customDomain',
      );
    }
  }

  private async assertNotActiveElsewhere(communityId: string, domain: string): Promise<void> {
    const holder = await this.communities.findByCustomDomain(domain);
    if (holder && holder.id !== communityId) {
      throw Errors.conflict(`The custom domain '${domain}' is used by another community`);
    }
  }
}
