import { Body, Controller, Get, HttpStatus, Param, Post, Query, Res } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import {
  AllowPortalSession,
  RequireFeature,
  RequirePermission,
} from '../../../common/decorators/auth.decorators';
import { CurrentTenant } from '../../../common/decorators/request.decorators';
import { ApiEndpoint } from '../../../common/http/api-docs';
import type { TenantContext } from '../../../common/http/request-context';
import { successEnvelope } from '../../../common/http/success-envelope';
import { PageQueryDto } from '../../../common/pagination/page-query.dto';
import { CommunityParamsDto } from '../dto/webhook-requests.dto';
import { communityOf } from '../webhooks.controller';
import { CreateReplayDto, CreatedReplayDto, ReplayDryRunDto, ReplayDto, ReplayParamsDto } from './replay.dto';
import { WebhookReplaysService } from './webhook-replays.service';

/** Bulk replay (docs/api.md#bulk-replay): the same guards as the other webhook routes. */
@ApiTags('webhooks')
@Controller('communities/:communityId/webhooks/replays')
@RequireFeature('webhooks')
@RequirePermission('WEBHOOKS_MANAGE')
@AllowPortalSession()
export class WebhookReplaysController {
  constructor(private readonly replays: WebhookReplaysService) {}

  @Post()
  @ApiEndpoint({
    summary:
      'Replay, in the background, the messages of a window whose latest attempt on an endpoint matches; or count them (dryRun)',
    description:
      'since is required; until defaults to now; the window is at most 30 days and no further back than WEBHOOK_MESSAGE_RETENTION. ' +
      'Each selected message is queued once per endpoint as the next attempt of its messageId, marked trigger "replay" in the log; ' +
      "the endpoint's rate limit, FIFO order and in-flight caps apply. dryRun: 200 with the count per endpoint, nothing written. " +
      'Otherwise 202: a worker takes the selection in batches; read its progress with GET …/replays/{replayId}. ' +
      '404 when an endpoint id is not one of this community; 409 when the community has 3 replays queued or running.',
    auth: 'jwt',
    response: CreatedReplayDto,
    status: HttpStatus.ACCEPTED,
    errors: [403, 404, 409],
  })
  @ApiExtraModels(ReplayDryRunDto)
  @ApiResponse({
    status: HttpStatus.OK,
    description: 'dryRun: what the replay would select, nothing written',
    schema: {
      type: 'object',
      required: ['success', 'data'],
      properties: {
        success: { type: 'boolean', enum: [true] },
        data: { $ref: getSchemaPath(ReplayDryRunDto) },
      },
    },
  })
  async createReplay(
    @Param() params: CommunityParamsDto,
    @Body() dto: CreateReplayDto,
    @CurrentTenant() tenant: TenantContext,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const communityId = communityOf(tenant, params);
    if (dto.dryRun) {
      const counted = await this.replays.dryRun(communityId, dto);
      await reply.status(HttpStatus.OK).send(successEnvelope(counted));
      return;
    }
    const created = await this.replays.create(communityId, dto);
    await reply.status(HttpStatus.ACCEPTED).send(successEnvelope(created));
  }

  @Get()
  @ApiEndpoint({
    summary: "The community's replays, newest first",
    auth: 'jwt',
    response: ReplayDto,
    paged: true,
    errors: [403],
  })
  listReplays(
    @Param() params: CommunityParamsDto,
    @Query() query: PageQueryDto,
    @CurrentTenant() tenant: TenantContext,
  ) {
    return this.replays.list(communityOf(tenant, params), query);
  }

  @Get(':replayId')
  @ApiEndpoint({
    summary: "A replay's state and progress",
    auth: 'jwt',
    response: ReplayDto,
    errors: [403, 404],
  })
  getReplay(@Param() params: ReplayParamsDto, @CurrentTenant() tenant: TenantContext) {
    return this.replays.get(communityOf(tenant, params), params.replayId);
  }

  @Post(':replayId/cancel')
  @ApiEndpoint({
    summary: 'Stop queuing: the attempts already queued are sent; a finished replay is answered as it is',
    auth: 'jwt',
    response: ReplayDto,
    errors: [403, 404],
  })
  cancelReplay(@Param() params: ReplayParamsDto, @CurrentTenant() tenant: TenantContext) {
    return this.replays.cancel(communityOf(tenant, params), params.replayId);
  }
}
