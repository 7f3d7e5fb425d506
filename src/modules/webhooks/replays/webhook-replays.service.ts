import { Injectable } from '@nestjs/common';
import { Errors } from '../../../common/errors/app-error';
import { type Page, toPage } from '../../../common/pagination/page-query.dto';
import { AppConfig } from '../../../config/app-config';
import type { ReplaySelection } from '../core/replays/replay-selection';
import { WebhookEndpointsStore } from '../core/webhook-endpoints.store';
import type { CreateReplayDto } from './replay.dto';
import { ReplayView, WebhookReplaysStore } from './webhook-replays.store';

/** A replay's window is at most this long (docs/product-decisions.md#bulk-replay). */
export const REPLAY_MAX_WINDOW_DAYS = 30;
/** Replays one community may have queued or running at once. */
export const REPLAY_MAX_ACTIVE = 3;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Bulk replay (docs/api.md#bulk-replay): checks the selection, counts it (the dry run) or writes the replay
 * row that the workers then take in batches (worker/replay-runner.service.ts). The API queues nothing itself.
 */
@Injectable()
export class WebhookReplaysService {
  constructor(
    private readonly store: WebhookReplaysStore,
    private readonly endpoints: WebhookEndpointsStore,
    private readonly config: AppConfig,
  ) {}

  async dryRun(
    communityId: string,
    dto: CreateReplayDto,
  ): Promise<{ count: number; byEndpoint: Record<string, number> }> {
    const byEndpoint = await this.store.countByEndpoint(await this.selection(communityId, dto));
    const count = Object.values(byEndpoint).reduce((sum, n) => sum + n, 0);
    return { count, byEndpoint };
  }

  async create(
    communityId: string,
    dto: CreateReplayDto,
  ): Promise<{ id: string; state: 'queued'; total: number }> {
    const replay = await this.store.create(await this.selection(communityId, dto), REPLAY_MAX_ACTIVE);
    if (!replay)
      throw Errors.conflict(
        `This community already has ${REPLAY_MAX_ACTIVE} replays queued or running: wait for one to finish or cancel one`,
      );
    return { id: replay.id, state: 'queued', total: replay.total };
  }

  async get(communityId: string, replayId: string): Promise<ReplayView> {
    const replay = await this.store.get(communityId, replayId);
    if (!replay) throw Errors.notFound('Webhook replay');
    return replay;
  }

  async list(communityId: string, query: { page: number; limit: number }): Promise<Page<ReplayView>> {
    const { items, total } = await this.store.list(communityId, query);
    return toPage(items, query, total);
  }

  async cancel(communityId: string, replayId: string): Promise<ReplayView> {
    const replay = await this.store.cancel(communityId, replayId);
    if (!replay) throw Errors.notFound('Webhook replay');
    return replay;
  }

  /** The request as a selection: 400 for a bad window, 404 for an endpoint id that is not the community's. */
  private async selection(communityId: string, dto: CreateReplayDto): Promise<ReplaySelection> {
    const now = Date.now();
    const since = new Date(dto.since);
    const until = dto.until ? new Date(dto.until) : new Date(now);
    if (!(since < until)) throw Errors.badRequest('since must be before until', 'since');
    if (until.getTime() - since.getTime() > REPLAY_MAX_WINDOW_DAYS * DAY_MS)
      throw Errors.badRequest(
        `The window from since to until is at most ${REPLAY_MAX_WINDOW_DAYS} days`,
        'since',
      );
    if (since.getTime() < now - this.config.webhookMessageRetentionMs)
      throw Errors.badRequest(
        `since is further back than the event bodies are kept (WEBHOOK_MESSAGE_RETENTION, ${this.config.WEBHOOK_MESSAGE_RETENTION})`,
        'since',
      );
    const own = (await this.endpoints.list(communityId)).map((e) => e.id);
    let endpointIds = own;
    if (dto.endpointIds) {
      const known = new Set(own);
      // another community's endpoint is answered as one that does not exist
      if (dto.endpointIds.some((id) => !known.has(id))) throw Errors.notFound('Webhook endpoint');
      endpointIds = dto.endpointIds;
    }
    return {
      communityId,
      endpointIds,
      since,
      until,
      eventTypes: dto.eventTypes ?? null,
      status: dto.status ?? 'FAILED',
      responseStatus: dto.responseStatus?.map(String) ?? null,
    };
  }
}
