import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AllowApiKey, RequireFeature, RequirePermission } from '../../common/decorators/auth.decorators';
import { CurrentTenant } from '../../common/decorators/request.decorators';
import { ApiEndpoint } from '../../common/http/api-docs';
import type { TenantContext } from '../../common/http/request-context';
import { PutSidebarDto, SidebarDto } from './dto/sidebar.dto';
import { SidebarService } from './sidebar.service';

@ApiTags('customization')
@Controller('sdk/customization/sidebar')
@AllowApiKey()
@RequireFeature('customization')
export class SidebarController {
  constructor(private readonly sidebar: SidebarService) {}

  @Get()
  @ApiEndpoint({
    communityIdQuery: true,
    summary: 'The sidebar (any member); empty with updatedAt null until first set',
    auth: 'jwt-or-api-key',
    response: SidebarDto,
    errors: [403],
  })
  get(@CurrentTenant() tenant: TenantContext) {
    return this.sidebar.get(tenant.communityId);
  }

  @Put()
  @RequirePermission('CUSTOMIZATION_MANAGE')
  @ApiEndpoint({
    summary: 'Replace the whole sidebar (at most 50 items) atomically',
    description: 'Records customization.updated with the new sidebar.',
    auth: 'jwt-or-api-key',
    response: SidebarDto,
    errors: [403],
  })
  replace(@Body() dto: PutSidebarDto, @CurrentTenant() tenant: TenantContext) {
    return this.sidebar.replace(tenant.communityId, dto.items);
  }
}
