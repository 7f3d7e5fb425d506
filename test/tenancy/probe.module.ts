import { Body, Controller, Get, Module, Param, Post, Query } from '@nestjs/common';
import {
  AllowApiKey,
  RequireFeature,
  RequirePermission,
  TenantScoped,
} from '../../src/common/decorators/auth.decorators';
import { CurrentActor, CurrentTenant } from '../../src/common/decorators/request.decorators';
import type { Actor, TenantContext } from '../../src/common/http/request-context';
import { TenantBodyDto } from '../../src/common/http/tenant-body.dto';

function echo(tenant: TenantContext, actor: Actor) {
  return {
    communityId: tenant.communityId,
    slug: tenant.community.slug,
    source: tenant.source,
    role: tenant.role,
    permissions: [...tenant.permissions].sort(),
    actor: { kind: actor.kind, userId: actor.userId },
  };
}

/**
 * Test-only routes that exercise the guard pipeline (tenant resolution, plan features, permissions,
 * credential kinds) and echo what it decided. Registered only by the tests that import it.
 */
@Controller('probe')
class ProbeController {
  @Get('tenant')
  @TenantScoped()
  @AllowApiKey()
  fromRequest(
    @CurrentTenant() tenant: TenantContext,
    @CurrentActor() actor: Actor,
    @Query() _q: TenantBodyDto,
  ) {
    return echo(tenant, actor);
  }

  @Get('communities/:communityId/tenant')
  @TenantScoped()
  @AllowApiKey()
  fromPath(
    @CurrentTenant() tenant: TenantContext,
    @CurrentActor() actor: Actor,
    @Param('communityId') _id: string,
    @Query() _q: TenantBodyDto,
  ) {
    return echo(tenant, actor);
  }

  @Post('tenant')
  @TenantScoped()
  @AllowApiKey()
  fromBody(@CurrentTenant() tenant: TenantContext, @CurrentActor() actor: Actor, @Body() _b: TenantBodyDto) {
    return echo(tenant, actor);
  }

  @Get('jwt-only')
  @TenantScoped()
  jwtOnly(@CurrentTenant() tenant: TenantContext, @CurrentActor() actor: Actor) {
    return echo(tenant, actor);
  }

  @Get('permission')
  @RequirePermission('WEBHOOKS_MANAGE')
  @AllowApiKey()
  permission(@CurrentTenant() tenant: TenantContext, @CurrentActor() actor: Actor) {
    return echo(tenant, actor);
  }

  @Get('feature')
  @RequireFeature('webhooks')
  @AllowApiKey()
  feature(@CurrentTenant() tenant: TenantContext, @CurrentActor() actor: Actor) {
    return echo(tenant, actor);
  }
}

@Module({ controllers: [ProbeController] })
export class ProbeModule {}
