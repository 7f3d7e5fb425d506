import { Body, Controller, Delete, Get, HttpStatus, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiParam, ApiTags } from '@nestjs/swagger';
import {
  AllowPortalSession,
  RequireFeature,
  RequirePermission,
} from '../../common/decorators/auth.decorators';
import { RateLimit } from '../../common/decorators/rate-limit.decorator';
import { CurrentTenant } from '../../common/decorators/request.decorators';
import { Errors } from '../../common/errors/app-error';
import { ApiEndpoint } from '../../common/http/api-docs';
import type { TenantContext } from '../../common/http/request-context';
import { MessageExpungeService } from './core/expunge/message-expunge.service';
import { DeliveryLogService } from './delivery-log.service';
import { CommunityMessagePageDto, CommunityMessageQueryDto } from './dto/community-messages.dto';
import { DeliveryQueryDto, FiguresQueryDto, MessageQueryDto } from './dto/webhook-log-queries.dto';
import {
  CommunityParamsDto,
  CreateWebhookDto,
  DeliveryParamsDto,
  MessageParamsDto,
  RecoverDeliveriesDto,
  ResendDeliveryDto,
  SendTestDto,
  UpdateWebhookDto,
  WebhookParamsDto,
} from './dto/webhook-requests.dto';
import {
  CreatedWebhookDto,
  DeletedWebhookDto,
  DeliveryDto,
  DeliveryPageDto,
  EndpointFiguresDto,
  ExpungedMessageDto,
  MessagePageDto,
  RecoverResultDto,
  RotatedSecretDto,
  WebhookDto,
  WebhookListDto,
  WebhookTestFailedBodyDto,
} from './dto/webhook-responses.dto';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookFiguresService } from './webhook-figures.service';
import { WebhookResendService } from './webhook-resend.service';
import { WebhookTestService } from './webhook-test.service';

/**
 * The community in the path is the one the request acts in. Only a custom-domain Host outranks it
 * (docs/product-decisions.md#3-tenancy-roles-permissions-plans); a path naming another community than that
 * host is refused rather than guessed.
 */
export function communityOf(tenant: TenantContext, params: CommunityParamsDto): string {
  // the path names it by id or by slug (any case), as the tenant resolver reads it
  const named = params.communityId.toLowerCase();
  if (named !== tenant.communityId && named !== tenant.community.slug.toLowerCase()) {
    throw Errors.forbidden('The community in the path is not the community this request resolves to');
  }
  return tenant.communityId;
}

/**
 * Webhook endpoint management (docs/api.md#webhooks): Bearer JWT only, WEBHOOKS_MANAGE, plan feature
 * `webhooks`.
 */
@ApiTags('webhooks')
@Controller('communities/:communityId/webhooks')
@RequireFeature('webhooks')
@RequirePermission('WEBHOOKS_MANAGE')
@AllowPortalSession()
export class WebhooksController {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly deliveries: DeliveryLogService,
    private readonly tester: WebhookTestService,
    private readonly resender: WebhookResendService,
    private readonly figures: WebhookFiguresService,
    private readonly expunger: MessageExpungeService,
  ) {}

  // a static segment: find-my-way matches it before the :webhookId routes, and a webhook id is a UUID
  @Delete('messages/:messageId/content')
  @ApiEndpoint({
    summary:
      "Erase a message's content: its event body and every attempt's response body, everywhere they are kept",
    description:
      'For every endpoint of the community. The log keeps the attempts, with expungedAt set and payload and responseBody null; attempts waiting to be sent are closed FAILED, unsent; a resend of the message answers 409 MESSAGE_EXPUNGED. Expunging again answers the first expungedAt. 404 when the community has no such message.',
    auth: 'jwt',
    response: ExpungedMessageDto,
    errors: [403, 404],
  })
  expunge(@Param() params: MessageParamsDto, @CurrentTenant() tenant: TenantContext) {
    return this.expunger.expunge(communityOf(tenant, params), params.messageId);
  }

  // a static segment, like the expunge above: GET …/webhooks/messages never reaches a :webhookId route
  @Get('messages')
  @ApiEndpoint({
    summary:
      "The community's messages across its endpoints, newest first, cursor-paged (limit 1–100, default 50; filters)",
    description:
      'subject, eventType, since and until filter the message (since/until: when it was raised); endpointId, status and responseStatus its state at an endpoint (the latest attempt; responseStatus the latest one that ended), and choose the endpoints each item lists. Pass nextCursor as cursor for the next page: pages neither repeat nor skip a message while new ones arrive. 400 for a cursor this route did not give.',
    auth: 'jwt',
    response: CommunityMessagePageDto,
    errors: [400, 403],
  })
  listCommunityMessages(
    @Param() params: CommunityParamsDto,
    @Query() query: CommunityMessageQueryDto,
    @CurrentTenant() tenant: TenantContext,
  ) {
    return this.deliveries.communityMessages(communityOf(tenant, params), query);
  }

  @Get()
  @ApiEndpoint({
    communityIdQuery: true,
    summary: "List the community's webhook endpoints (never their secrets)",
    auth: 'jwt',
    response: WebhookListDto,
    errors: [403],
  })
  // named here as well, or the documented query parameter of the same name would replace the path one
  @ApiParam({
    name: 'communityId',
    description: "the community's id (a uuid) or its slug",
    schema: { type: 'string' },
  })
  list(@Param() params: CommunityParamsDto, @CurrentTenant() tenant: TenantContext) {
    return this.endpoints.list(communityOf(tenant, params));
  }

  @Post()
  @RateLimit('webhook-create')
  @ApiEndpoint({
    summary: 'Create an endpoint; data.secret is the signing secret, shown in this response only',
    description:
      'url: https on port 443, no credentials, host resolving only to public addresses; a rabbitmq or nats endpoint (type, plan feature webhook_brokers) takes an amqps:// or tls:// url whose credentials are stored encrypted. Rate limit: burst 10, then 1 per 10 s per caller and community.',
    auth: 'jwt',
    response: CreatedWebhookDto,
    status: HttpStatus.CREATED,
    errors: [403, 409],
  })
  create(
    @Param() params: CommunityParamsDto,
    @Body() dto: CreateWebhookDto,
    @CurrentTenant() tenant: TenantContext,
  ) {
    return this.endpoints.create(communityOf(tenant, params), dto, tenant.community);
  }

  @Patch(':webhookId')
  @ApiEndpoint({
    summary: 'Update an endpoint; isActive=true re-enables it (clears disabledAt and the failure counter)',
    description: 'type is fixed at create: a different one is 400.',
    auth: 'jwt',
    response: WebhookDto,
    errors: [403, 404],
  })
  update(
    @Param() params: WebhookParamsDto,
    @Body() dto: UpdateWebhookDto,
    @CurrentTenant() tenant: TenantContext,
  ) {
    return this.endpoints.update(communityOf(tenant, params), params.webhookId, dto);
  }

  @Delete(':webhookId')
  @ApiEndpoint({
    summary: 'Delete an endpoint with its secrets and delivery log',
    auth: 'jwt',
    response: DeletedWebhookDto,
    errors: [403, 404],
  })
  remove(@Param() params: WebhookParamsDto, @CurrentTenant() tenant: TenantContext) {
    return this.endpoints.remove(communityOf(tenant, params), params.webhookId);
  }

  @Get(':webhookId/deliveries')
  @ApiEndpoint({
    summary: 'Delivery log of an endpoint, newest first, every attempt (limit 1–100, default 50; offset)',
    auth: 'jwt',
    response: DeliveryPageDto,
    errors: [403, 404],
  })
  listDeliveries(
    @Param() params: WebhookParamsDto,
    @Query() query: DeliveryQueryDto,
    @CurrentTenant() tenant: TenantContext,
  ) {
    return this.deliveries.list(communityOf(tenant, params), params.webhookId, query);
  }

  @Get(':webhookId/messages')
  @ApiEndpoint({
    summary:
      "An endpoint's log by message: newest first by latest attempt, each with every attempt (limit 1–100, default 50; offset; filters)",
    description:
      'status, since and until apply to the latest attempt; responseStatus (a code, 2xx–5xx or network) to the latest attempt that ended; eventType, messageId and subject to the message. No total: hasMore says whether another page follows.',
    auth: 'jwt',
    response: MessagePageDto,
    errors: [403, 404],
  })
  listMessages(
    @Param() params: WebhookParamsDto,
    @Query() query: MessageQueryDto,
    @CurrentTenant() tenant: TenantContext,
  ) {
    return this.deliveries.messages(communityOf(tenant, params), params.webhookId, query);
  }

  @Get(':webhookId/stats')
  @ApiEndpoint({
    summary:
      "An endpoint's figures over time: attempts, successes, failures, latency p50/p95 per hour (period 24h or 7d)",
    description:
      'Read from hourly buckets written with each outcome, never from the delivery log. Every hour of the period is there, empty ones with zeros. Latency percentiles are estimates inside fixed latency bins.',
    auth: 'jwt',
    response: EndpointFiguresDto,
    errors: [400, 403, 404],
  })
  stats(
    @Param() params: WebhookParamsDto,
    @Query() query: FiguresQueryDto,
    @CurrentTenant() tenant: TenantContext,
  ) {
    return this.figures.figures(communityOf(tenant, params), params.webhookId, query.period);
  }

  @Post(':webhookId/rotate-secret')
  @RateLimit('webhook-rotate-secret')
  @ApiEndpoint({
    summary: 'Mint a new primary secret (shown once); earlier secrets stay valid for the overlap window',
    description: 'Rate limit: burst 5, then 1 per 20 s per caller and community.',
    auth: 'jwt',
    response: RotatedSecretDto,
    errors: [403, 404],
  })
  rotateSecret(@Param() params: WebhookParamsDto, @CurrentTenant() tenant: TenantContext) {
    return this.endpoints.rotateSecret(communityOf(tenant, params), params.webhookId);
  }

  @Post(':webhookId/test')
  @RateLimit('webhook-test')
  @ApiEndpoint({
    summary:
      'Send one signed test delivery now (webhook.test, or the example of an event type; ignores events and isActive) and log it',
    description:
      'Without a body (or with {}) it sends webhook.test; with {eventType}, the catalog example of that subscribable type. ' +
      'The attempt is marked test: never retried, resent, recovered nor counted against the endpoint. ' +
      '200 with the attempt when the target answered 2xx; otherwise 500 WEBHOOK_TEST_FAILED whose `data` is the logged attempt. Rate limit: burst 5, then 1 per 20 s.',
    auth: 'jwt',
    response: DeliveryDto,
    errors: [403, 404, 500],
    errorBodies: { 500: WebhookTestFailedBodyDto },
  })
  test(
    @Param() params: WebhookParamsDto,
    @CurrentTenant() tenant: TenantContext,
    @Body() body: SendTestDto = {},
  ) {
    return this.tester.sendTest(communityOf(tenant, params), params.webhookId, body?.eventType);
  }

  @Post(':webhookId/deliveries/:deliveryId/resend')
  @RateLimit('webhook-resend')
  @ApiEndpoint({
    summary:
      'Send that event again: same messageId, the next attempt number; answers the new PENDING attempt',
    description:
      "409 when the endpoint is paused or disabled (resume it first), the delivery is a test delivery, or its event body is no longer stored; 409 MESSAGE_EXPUNGED when the message's content was expunged. Rate limit: burst 5, then 1 per 20 s per caller and community.",
    auth: 'jwt',
    response: DeliveryDto,
    status: HttpStatus.ACCEPTED,
    errors: [403, 404, 409],
  })
  resend(
    @Param() params: DeliveryParamsDto,
    @Body() _body: ResendDeliveryDto,
    @CurrentTenant() tenant: TenantContext,
  ) {
    return this.resender.resend(communityOf(tenant, params), params.webhookId, params.deliveryId);
  }

  @Post(':webhookId/recover')
  @RateLimit('webhook-recover')
  @ApiEndpoint({
    summary:
      'Send again, once, every event whose latest attempt FAILED in [since, until), and with include "missed" every event of the window the endpoint missed while paused or disabled',
    description:
      'until defaults to now; the window is at most 14 days; include defaults to ["failed"]. One call queues at most WEBHOOK_RECOVER_MAX events (default 10,000: failed ones oldest attempt first, then missed ones in commit order) and answers how many remain: call again with the same window for the rest. An event that already has a newer attempt is left alone and a missed event is queued once, so calling it twice queues nothing twice. expired counts the missed events of the window whose body is past WEBHOOK_MESSAGE_RETENTION. 409 when the endpoint is paused or disabled: resume it first. Rate limit: burst 5, then 1 per 20 s.',
    auth: 'jwt',
    response: RecoverResultDto,
    status: HttpStatus.ACCEPTED,
    errors: [403, 404, 409],
  })
  recover(
    @Param() params: WebhookParamsDto,
    @Body() dto: RecoverDeliveriesDto,
    @CurrentTenant() tenant: TenantContext,
  ) {
    const until = dto.until ? new Date(dto.until) : new Date();
    return this.resender.recover(
      communityOf(tenant, params),
      params.webhookId,
      new Date(dto.since),
      until,
      dto.include,
    );
  }
}
