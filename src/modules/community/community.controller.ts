import { Body, Controller, Get, Patch, Post } from '@nestjs/common';
import { ApiTags, ApiBody } from '@nestjs/swagger';
import {
  AllowApiKey,
  RequireFeature,
  RequirePermission,
  TenantScoped,
} from '../../common/decorators/auth.decorators';
import { CurrentTenant } from '../../common/decorators/request.decorators';
import { ApiEndpoint } from '../../common/http/api-docs';
import type { TenantContext } from '../../common/http/request-context';
import { TenantBodyDto } from '../../common/http/tenant-body.dto';
import { CommunityService } from './community.service';
import { BrandingDto, SdkCommunityDto, SettingsDto } from './dto/community.dto';
import { UpdateBrandingDto } from './dto/update-branding.dto';
import { UpdateSettingsDto } from './dto/update-settings.dto';

@ApiTags('community')
@Controller('sdk/community')
@AllowApiKey()
@TenantScoped()
export class CommunityController {
  constructor(private readonly community: CommunityService) {}

  @Get()
  @ApiEndpoint({
    communityIdQuery: true,
    summary: 'The community, with its settings and branding',
    auth: 'jwt-or-api-key',
    response: SdkCommunityDto,
    errors: [403],
  })
  get(@CurrentTenant() tenant: TenantContext) {
    return this.community.get(tenant.communityId);
  }

  @Get('settings')
  @ApiEndpoint({
    communityIdQuery: true,
    summary: "The community's settings",
    auth: 'jwt-or-api-key',
    response: SettingsDto,
    errors: [403],
  })
  settings(@CurrentTenant() tenant: TenantContext) {
    return this.community.settings(tenant.communityId);
  }

  @Patch('settings')
  @RequirePermission('COMMUNITY_MANAGE')
  @ApiEndpoint({
    summary: 'Change settings (only the fields sent)',
    description:
      'A non-null customDomain needs the custom_domain feature (403 FEATURE_NOT_AVAILABLE). It is recorded as ' +
      'pending (customDomainPending, with the DNS TXT record to publish) and resolves nothing until verified ' +
      'with POST /api/sdk/community/custom-domain/verify; the active customDomain keeps serving until then. ' +
      "Sending the active domain again cancels a pending one; null removes both. The service's own hostnames " +
      '(SERVICE_HOSTNAMES) are 400; a domain active in another community is 409. ' +
      'Emits community.updated when a value changed.',
    auth: 'jwt-or-api-key',
    response: SettingsDto,
    errors: [403, 409],
  })
  updateSettings(@Body() dto: UpdateSettingsDto, @CurrentTenant() tenant: TenantContext) {
    return this.community.updateSettings(tenant, dto);
  }

  @Post('custom-domain/verify')
  @RequirePermission('COMMUNITY_MANAGE')
  @RequireFeature('custom_domain')
  @ApiBody({ type: TenantBodyDto, required: false })
  @ApiEndpoint({
    summary: 'Verify the pending custom domain through its DNS TXT record',
    description:
      'Looks up customDomainPending.txtRecord.name; when one of its TXT values equals txtRecord.value the pending ' +
      'domain becomes the active customDomain (requests with that Host resolve to this community) and the ' +
      'previous one stops. No pending domain, or a TXT record that is missing or different, is 400 ' +
      'VALIDATION_ERROR saying what to publish; a domain active in another community is 409. ' +
      'Emits community.updated.',
    auth: 'jwt-or-api-key',
    response: SettingsDto,
    errors: [403, 409],
  })
  verifyDomain(@CurrentTenant() tenant: TenantContext) {
    return this.community.verifyDomain(tenant);
  }

  @Patch('branding')
  @RequirePermission('COMMUNITY_MANAGE')
  @ApiEndpoint({
    summary: 'Change branding (only the fields sent; null clears one)',
    description: 'Emits community.updated when a value changed.',
    auth: 'jwt-or-api-key',
    response: BrandingDto,
    errors: [403],
  })
  updateBranding(@Body() dto: UpdateBrandingDto, @CurrentTenant() tenant: TenantContext) {
    return this.community.updateBranding(tenant, dto);
  }
}
