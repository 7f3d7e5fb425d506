import { Body, Controller, Delete, Get, HttpStatus, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AllowApiKey, RequireFeature, RequirePermission } from '../../common/decorators/auth.decorators';
import { CurrentTenant } from '../../common/decorators/request.decorators';
import { ApiEndpoint } from '../../common/http/api-docs';
import { IdParamDto } from '../../common/http/id-param.dto';
import type { TenantContext } from '../../common/http/request-context';
import { AdvertisementsService } from './advertisements.service';
import { AdvertisementsQueryDto } from './dto/active-ads.query';
import {
  AdvertisementDto,
  CreateAdvertisementDto,
  DeletedAdvertisementDto,
  UpdateAdvertisementDto,
} from './dto/advertisement.dto';

@ApiTags('customization')
@Controller('sdk/customization/advertisements')
@AllowApiKey()
@RequireFeature('advertisements')
export class AdvertisementsController {
  constructor(private readonly ads: AdvertisementsService) {}

  @Get('active')
  @ApiEndpoint({
    summary: 'Active advertisements (any member), newest start first, paginated',
    description:
      'Active = isActive and startsAt <= now < endsAt. A page like every /api/sdk list; `placement` filters.',
    auth: 'jwt-or-api-key',
    response: AdvertisementDto,
    paged: true,
    errors: [403],
  })
  active(@Query() query: AdvertisementsQueryDto, @CurrentTenant() tenant: TenantContext) {
    return this.ads.activePage(tenant.communityId, query);
  }

  @Get()
  @RequirePermission('CUSTOMIZATION_MANAGE')
  @ApiEndpoint({
    summary: 'Every advertisement, active or not (extension), newest start first, paginated',
    auth: 'jwt-or-api-key',
    response: AdvertisementDto,
    paged: true,
    errors: [403],
  })
  all(@Query() query: AdvertisementsQueryDto, @CurrentTenant() tenant: TenantContext) {
    return this.ads.allPage(tenant.communityId, query);
  }

  @Post()
  @RequirePermission('CUSTOMIZATION_MANAGE')
  @ApiEndpoint({
    summary: 'Create an advertisement (extension)',
    description: 'startsAt must be before endsAt; URLs are http(s). Records customization.updated.',
    auth: 'jwt-or-api-key',
    response: AdvertisementDto,
    status: HttpStatus.CREATED,
    errors: [403],
  })
  create(@Body() dto: CreateAdvertisementDto, @CurrentTenant() tenant: TenantContext) {
    return this.ads.create(tenant.communityId, dto);
  }

  @Patch(':id')
  @RequirePermission('CUSTOMIZATION_MANAGE')
  @ApiEndpoint({
    summary: 'Update an advertisement (extension)',
    description: 'The resulting window must keep startsAt before endsAt. Records customization.updated.',
    auth: 'jwt-or-api-key',
    response: AdvertisementDto,
    errors: [403, 404],
  })
  update(
    @Param() params: IdParamDto,
    @Body() dto: UpdateAdvertisementDto,
    @CurrentTenant() tenant: TenantContext,
  ) {
    return this.ads.update(tenant.communityId, params.id, dto);
  }

  @Delete(':id')
  @RequirePermission('CUSTOMIZATION_MANAGE')
  @ApiEndpoint({
    communityIdQuery: true,
    summary: 'Delete an advertisement (extension)',
    description: 'Records customization.updated.',
    auth: 'jwt-or-api-key',
    response: DeletedAdvertisementDto,
    errors: [403, 404],
  })
  remove(@Param() params: IdParamDto, @CurrentTenant() tenant: TenantContext) {
    return this.ads.remove(tenant.communityId, params.id);
  }
}
