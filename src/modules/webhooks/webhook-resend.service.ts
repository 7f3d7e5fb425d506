import { Injectable, Logger } from '@nestjs/common';
import { Errors } from '../../common/errors/app-error';
import { AppConfig } from '../../config/app-config';
import { boundConnection, runAfterCommit } from '../../prisma/request-transaction';
import type { DeliveryJobData } from './core/delivery-job';
import type { RecoverInclude } from './dto/webhook-requests.dto';
import type { DeliveryView } from './delivery-log.service';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { DeliveryQueue } from './core/delivery-queue.service';
import { RequestedAttemptsStore, ResentAttempt } from './requested-attempts.store';

/** Recover looks back at most this far in one call (docs/product-decisions.md#5-webhooks, "Recover"). */
export const RECOVER_MAX_WINDOW_DAYS = 14;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Events written and enqueued per statement of a recover call. */
export const RECOVER_PAGE_SIZE = 1_000;
/** Concurrent resends of one event race for the next attempt number; the loser tries again. */
const RESEND_TRIES = 3;

/**
 * What a recover call did: events queued, events it left for the next call (WEBHOOK_RECOVER_MAX), and
 * missed events of the window it can no longer send (past WEBHOOK_MESSAGE_RETENTION; 0 without `missed`).
 */
export interface RecoverResult {
  queued: number;
  remaining: number;
  expired: number;
}

/**
 * Resend and recover (docs/product-decisions.md#5-webhooks): a new attempt of an event already delivered (or
 * not), same messageId, the next attempt number. The PENDING row is written first and due now,
 * then the job is enqueued: if Redis is down the request still succeeds and the durable schedule's
 * sweep sends it, so the answer never depends on the queue.
 */
@Injectable()
export class WebhookResendService {
  private readonly logger = new Logger(WebhookResendService.name);

  constructor(
    private readonly deliveries: RequestedAttemptsStore,
    private readonly endpoints: WebhookEndpointsService,
    private readonly queue: DeliveryQueue,
    private readonly config: AppConfig,
  ) {}

  async resend(communityId: string, endpointId: string, deliveryId: string): Promise<DeliveryView> {
    await this.endpointTakingDeliveries(communityId, endpointId);
    const source = await this.deliveries.findResendSource(communityId, endpointId, deliveryId);
    if (!source) throw Errors.notFound('Webhook delivery');
    if (source.expunged) throw Errors.messageExpunged();
    if (!source.bodyStored)
      throw Errors.conflict(
        'This event cannot be resent: a test delivery is sent again through the test route, and an event past the retention has no stored body',
      );
    for (let tries = 1; ; tries++) {
      const attempt = await this.deliveries.insertResendAttempt(communityId, endpointId, source.messageId);
      if (attempt) {
        await this.enqueue(communityId, [attempt]);
        return view(attempt);
      }
      if (tries >= RESEND_TRIES)
        throw Errors.conflict('Another resend of this event is under way; try again');
    }
  }

  async recover(
    communityId: string,
    endpointId: string,
    since: Date,
    until: Date,
    include: readonly RecoverInclude[] = ['failed'],
  ): Promise<RecoverResult> {
    if (!(since < until)) throw Errors.badRequest('since must be before until', 'since');
    if (until.getTime() - since.getTime() > RECOVER_MAX_WINDOW_DAYS * DAY_MS)
      throw Errors.badRequest(
        `The window from since to until is at most ${RECOVER_MAX_WINDOW_DAYS} days`,
        'since',
      );
    await this.endpointTakingDeliveries(communityId, endpointId);
    const window = { since, until };
    const retentionMs = this.config.webhookMessageRetentionMs;
    // one cap for the call: failed events first (they were raised before an auto-disable, the missed
    // ones after it), then missed ones in outbox order
    let budget = this.config.WEBHOOK_RECOVER_MAX;
    let queued = 0;
    if (include.includes('failed')) {
      // pages of bounded statements, each enqueued before the next is written
      let after: string | null = null;
      while (budget > 0) {
        const limit = Math.min(RECOVER_PAGE_SIZE, budget);
        const page = await this.deliveries.insertRecoverAttempts(communityId, endpointId, window, {
          limit,
          after,
        });
        await this.enqueue(communityId, page.attempts);
        queued += page.attempts.length;
        budget -= page.attempts.length;
        after = page.last;
        if (page.examined < limit) break;
      }
    }
    if (include.includes('missed')) {
      while (budget > 0) {
        const limit = Math.min(RECOVER_PAGE_SIZE, budget);
        // each page deletes the rows it takes, so the next one starts after it
        const page = await this.deliveries.takeMissedAttempts(
          communityId,
          endpointId,
          window,
          retentionMs,
          limit,
        );
        await this.enqueue(communityId, page.attempts);
        queued += page.attempts.length;
        budget -= page.attempts.length;
        if (page.examined < limit) break;
      }
    }
    // what the next call would queue (none of it is queued twice: each has its newer attempt now)
    let remaining = 0;
    let expired = 0;
    if (include.includes('failed'))
      remaining += await this.deliveries.countRecoverable(communityId, endpointId, window);
    if (include.includes('missed')) {
      const missed = await this.deliveries.countMissed(communityId, endpointId, window, retentionMs);
      remaining += missed.recoverable;
      expired = missed.expired;
    }
    return { queued, remaining, expired };
  }

  /** 404 for another community's endpoint; 409 when it would not send what we queue. */
  private async endpointTakingDeliveries(communityId: string, endpointId: string): Promise<void> {
    const endpoint = await this.endpoints.get(communityId, endpointId);
    if (endpoint.disabledAt || !endpoint.isActive) {
      const state = endpoint.disabledAt ? 'disabled' : 'paused';
      throw Errors.conflict(
        `The endpoint is ${state}: resume it first (PATCH it with isActive: true), then resend`,
      );
    }
  }

  private async enqueue(communityId: string, attempts: ResentAttempt[]): Promise<void> {
    const jobs = attempts.map((a) => ({
      communityId,
      endpointId: a.endpointId,
      messageId: a.messageId,
      eventType: a.eventType,
      attempt: a.attempt,
      outboxId: a.outboxId,
      payload: a.payload,
    }));
    // In a request with an Idempotency-Key the new rows commit with its answer, after the handler: a
    // job added now could reach a worker that cannot see its row yet, so it is added after the commit.
    if (boundConnection()) runAfterCommit(() => void this.add(jobs));
    else await this.add(jobs);
  }

  private async add(jobs: DeliveryJobData[]): Promise<void> {
    try {
      await this.queue.addAll(jobs);
    } catch (err) {
      // the rows are PENDING and due: the sweep sends them once the queue is back
      this.logger.warn(
        { err, queued: jobs.length },
        'resent attempts not enqueued; the sweep will send them',
      );
    }
  }
}

function view(attempt: ResentAttempt): DeliveryView {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { outboxId, ...rest } = attempt;
  return rest;
}
