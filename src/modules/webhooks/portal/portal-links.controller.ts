import { Body, Controller, Get, HttpStatus, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Public, RequireFeature, RequirePermission } from '../../../common/decorators/auth.decorators';
import { RateLimit } from '../../../common/decorators/rate-limit.decorator';
import { CurrentActor, CurrentTenant } from '../../../common/decorators/request.decorators';
import { ApiEndpoint } from '../../../common/http/api-docs';
import type { Actor, TenantContext } from '../../../common/http/request-context';
import { CommunityParamsDto } from '../dto/webhook-requests.dto';
import { communityOf } from '../webhooks.controller';
import {
  ExchangePortalLinkDto,
  PortalCommunitiesDto,
  PortalLinkDto,
  PortalSessionDto,
} from './portal-links.dto';
import { PortalLinksService } from './portal-links.service';

/**
 * Minting a portal link needs a login token: a portal session cannot mint links (it is not marked
 * @AllowPortalSession), so a session can never outlive its own link.
 */
@ApiTags('webhooks')
@Controller('communities/:communityId/webhooks/portal-links')
@RequireFeature('webhooks')
@RequirePermission('WEBHOOKS_MANAGE')
export class PortalLinksController {
  constructor(private readonly links: PortalLinksService) {}

  @Post()
  @ApiEndpoint({
    summary: 'A single-use link into the webhook portal for this community (PORTAL_LINK_TTL, 10 min)',
    description:
      "The token is in the URL's fragment (never sent to a server); the portal exchanges it once " +
      'through POST /api/webhooks/portal-sessions for a session limited to this community’s webhook routes.',
    auth: 'jwt',
    response: PortalLinkDto,
    status: HttpStatus.CREATED,
    errors: [403],
  })
  create(
    @Param() params: CommunityParamsDto,
    @CurrentTenant() tenant: TenantContext,
    @CurrentActor() actor: Actor,
  ) {
    return this.links.create(communityOf(tenant, params), actor.userId);
  }
}

@ApiTags('webhooks')
@Controller('webhooks')
export class PortalSessionsController {
  constructor(private readonly links: PortalLinksService) {}

  @Get('manageable-communities')
  @ApiEndpoint({
    summary: "The caller's communities where they hold WEBHOOKS_MANAGE and the plan has webhooks",
    auth: 'jwt',
    response: PortalCommunitiesDto,
  })
  async manageable(@CurrentActor() actor: Actor) {
    return { items: await this.links.manageableCommunities(actor.userId) };
  }

  @Post('portal-sessions')
  @Public()
  @RateLimit('portal-exchange')
  @ApiEndpoint({
    summary: "Exchange a portal link's token (single use) for a session on that community's webhook routes",
    description:
      'With `community` (the portal page’s community, an id or a slug), a link of another community is ' +
      '403 FORBIDDEN and stays unused; a used, expired or unknown link is 401.',
    auth: 'public',
    response: PortalSessionDto,
    status: HttpStatus.CREATED,
    errors: [401, 403],
  })
  exchange(@Body() dto: ExchangePortalLinkDto) {
    return this.links.exchange(dto.token, dto.community);
  }
}
