import { Injectable, Logger } from '@nestjs/common';
import { Errors } from '../../common/errors/app-error';
import { DeliveriesStore, ResentAttempt } from './deliveries.store';
import type { DeliveryView } from './delivery/delivery-log.service';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { DeliveryQueue } from './worker/delivery-queue.service';

/** Recover looks back at most this far in one call (docs/product-decisions.md#5-webhooks). */
export const RECOVER_MAX_WINDOW_DAYS = 14;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Concurrent resends of one event race for the next attempt number; the loser tries again. */
const RESEND_TRIES = 3;

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
    private readonly deliveries: DeliveriesStore,
    private readonly endpoints: WebhookEndpointsService,
    private readonly queue: DeliveryQueue,
  ) {}

  async resend(communityId: string, endpointId: string, deliveryId: string): Promise<DeliveryView> {
    await this.endpointTakingDeliveries(communityId, endpointId);
    const source = await this.deliveries.findResendSource(communityId, endpointId, deliveryId);
    if (!source) throw Errors.notFound('Webhook delivery');
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
  ): Promise<{ queued: number }> {
    if (!(since < until)) throw Errors.badRequest('since must be before until', 'since');
    if (until.getTime() - since.getTime() > RECOVER_MAX_WINDOW_DAYS * DAY_MS)
      throw Errors.badRequest(
        `The window from since to until is at most ${RECOVER_MAX_WINDOW_DAYS} days`,
        'since',
      );
    await this.endpointTakingDeliveries(communityId, endpointId);
    const attempts = await this.deliveries.insertRecoverAttempts(communityId, endpointId, since, until);
    await this.enqueue(communityId, attempts);
    return { queued: attempts.length };
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
