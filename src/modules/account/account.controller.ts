import { Body, Controller, Delete, Get, HttpStatus, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AllowApiKey, RequirePermission } from '../../common/decorators/auth.decorators';
import { CurrentActor, CurrentTenant } from '../../common/decorators/request.decorators';
import { ApiEndpoint } from '../../common/http/api-docs';
import { IdParamDto } from '../../common/http/id-param.dto';
import type { Actor, TenantContext } from '../../common/http/request-context';
import { IdentityService } from './identity.service';
import { ApiKeysService } from './api-keys.service';
import { CommunitiesService } from './communities.service';
import { CreateApiKeyDto } from './dto/create-api-key.dto';
import { CreateCommunityDto } from './dto/create-community.dto';
import { ApiKeyDto, CommunityDto, CreatedApiKeyDto, IdentityDto } from './dto/responses.dto';

/** The service routes: who am I, create a community, manage API keys. */
@ApiTags('service')
@Controller('admin/sdk')
export class AccountController {
  constructor(
    private readonly admin: IdentityService,
    private readonly communities: CommunitiesService,
    private readonly apiKeys: ApiKeysService,
  ) {}

  @Get('me')
  @AllowApiKey()
  @ApiEndpoint({
    summary: 'The calling identity (user or API key)',
    auth: 'jwt-or-api-key',
    response: IdentityDto,
  })
  me(@CurrentActor() actor: Actor) {
    return this.admin.identity(actor);
  }

  @Post('communities')
  @ApiEndpoint({
    summary: 'Create a community; the caller becomes its OWNER',
    auth: 'jwt',
    response: CommunityDto,
    status: HttpStatus.CREATED,
    errors: [403, 409],
  })
  createCommunity(@Body() dto: CreateCommunityDto, @CurrentActor() actor: Actor) {
    this.communities.assertPlanAllowed(dto.plan, actor.isPlatformAdmin);
    return this.communities.create({ ...dto, ownerEmail: actor.email });
  }

  @Post('api-keys')
  @RequirePermission('API_KEYS_MANAGE')
  @ApiEndpoint({
    summary: 'Create an API key for the community; the whole key is in this response only',
    auth: 'jwt',
    response: CreatedApiKeyDto,
    status: HttpStatus.CREATED,
    errors: [403],
  })
  createApiKey(
    @Body() dto: CreateApiKeyDto,
    @CurrentTenant() tenant: TenantContext,
    @CurrentActor() actor: Actor,
  ) {
    return this.apiKeys.create(tenant.communityId, actor.userId, dto.name, dto.scopes);
  }

  @Get('api-keys')
  @RequirePermission('API_KEYS_MANAGE')
  @ApiEndpoint({
    communityIdQuery: true,
    summary: "List the community's API keys (never the keys themselves)",
    auth: 'jwt',
    response: ApiKeyDto,
    isArray: true,
    errors: [403],
  })
  listApiKeys(@CurrentTenant() tenant: TenantContext) {
    return this.apiKeys.list(tenant.communityId);
  }

  @Delete('api-keys/:id')
  @RequirePermission('API_KEYS_MANAGE')
  @ApiEndpoint({ summary: 'Revoke an API key', auth: 'jwt', response: ApiKeyDto, errors: [403, 404] })
  revokeApiKey(@Param() params: IdParamDto, @CurrentTenant() tenant: TenantContext) {
    return this.apiKeys.revoke(tenant.communityId, params.id);
  }
}
