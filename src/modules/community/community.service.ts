import { Injectable } from '@nestjs/common';
import { hasFeature } from '../../common/access/plans';
import { Errors } from '../../common/errors/app-error';
import type { TenantContext } from '../../common/http/request-context';
import { AppConfig } from '../../config/app-config';
import type { Prisma } from '../../generated/prisma/client';
import { PrismaService } from '../../prisma/prisma.service';
import { OutboxService } from '../events/outbox.service';
import type { BrandingDto, SdkCommunityDto, SettingsDto } from './dto/community.dto';
import type { UpdateBrandingDto } from './dto/update-branding.dto';
import type { UpdateSettingsDto } from './dto/update-settings.dto';

const COMMUNITY_SELECT = {
  id: true,
  slug: true,
  name: true,
  plan: true,
  customDomain: true,
  description: true,
  visibility: true,
  allowMemberPosts: true,
  logoUrl: true,
  faviconUrl: true,
  primaryColor: true,
  accentColor: true,
  createdAt: true,
  updatedAt: true,
} as const;

type CommunityRow = Prisma.CommunityGetPayload<{ select: typeof COMMUNITY_SELECT }>;
type Patch = Partial<Pick<CommunityRow, keyof SettingsDto | keyof BrandingDto>>;

function toView(row: CommunityRow): SdkCommunityDto {
  const { logoUrl, faviconUrl, primaryColor, accentColor, ...rest } = row;
  return { ...rest, branding: { logoUrl, faviconUrl, primaryColor, accentColor } };
}

function settingsOf(view: SdkCommunityDto): SettingsDto {
  const { name, description, visibility, allowMemberPosts, customDomain } = view;
  return { name, description, visibility, allowMemberPosts, customDomain };
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

@Injectable()
export class CommunityService {
  private readonly serviceHostname: string;

  constructor(
    private readonly prisma: PrismaService,
    private readonly outbox: OutboxService,
    config: AppConfig,
  ) {
    this.serviceHostname = new URL(config.publicBaseUrl).hostname.toLowerCase();
  }

  async get(communityId: string): Promise<SdkCommunityDto> {
    const row = await this.prisma.community.findUniqueOrThrow({
      where: { id: communityId },
      select: COMMUNITY_SELECT,
    });
    return toView(row);
  }

  async settings(communityId: string): Promise<SettingsDto> {
    return settingsOf(await this.get(communityId));
  }

  async updateSettings(tenant: TenantContext, dto: UpdateSettingsDto): Promise<SettingsDto> {
    const patch = patchOf(dto);
    if (patch.customDomain) await this.assertDomainAvailable(tenant, patch.customDomain);
    return settingsOf(await this.apply(tenant.communityId, patch));
  }

  async updateBranding(tenant: TenantContext, dto: UpdateBrandingDto): Promise<BrandingDto> {
    return (await this.apply(tenant.communityId, patchOf(dto))).branding;
  }

  /**
   * Writes the patch and, when a value actually changed, `community.updated` (the community after
   * the change and the names of the changed fields) in the same transaction.
   */
  private async apply(communityId: string, patch: Patch): Promise<SdkCommunityDto> {
    return this.prisma.$transaction(async (tx) => {
      const before = await tx.community.findUniqueOrThrow({
        where: { id: communityId },
        select: COMMUNITY_SELECT,
      });
      const changed = (Object.keys(patch) as (keyof Patch)[]).filter(
        (field) => patch[field] !== before[field],
      );
      if (changed.length === 0) return toView(before);
      const after = await tx.community.update({
        where: { id: communityId },
        data: patch,
        select: COMMUNITY_SELECT,
      });
      const community = toView(after);
      await this.outbox.record(tx, communityId, 'community.updated', { community, changed });
      return community;
    });
  }

  /** Setting a domain needs the plan feature; removing one (null) never does. A taken domain is 409. */
  private async assertDomainAvailable(tenant: TenantContext, domain: string): Promise<void> {
    if (!hasFeature(tenant.community.plan, tenant.community.featureOverrides, 'custom_domain')) {
      throw Errors.featureNotAvailable('custom_domain');
    }
    if (domain === this.serviceHostname) {
      throw Errors.badRequest("customDomain cannot be the service's own hostname", 'customDomain');
    }
    const holder = await this.prisma.community.findUnique({
      where: { customDomain: domain },
      select: { id: true },
    });
    if (holder && holder.id !== tenant.communityId) {
      throw Errors.conflict(`The custom domain '${domain}' is used by another community`);
    }
  }
}
