import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { DeliveryAttemptsStore } from './delivery-attempts.store';
import {
  EndpointState,
  LAST_SUCCESS_PRECISION_MS,
  WebhookEndpointsStore,
} from '../core/webhook-endpoints.store';

export type { EndpointState } from '../core/webhook-endpoints.store';

/** The failure counter and auto-disable (docs/product-decisions.md#5-webhooks, "Auto-disable"), applied after each attempt. */
@Injectable()
export class EndpointHealth {
  private readonly logger = new Logger(EndpointHealth.name);

  constructor(
    private readonly endpoints: WebhookEndpointsStore,
    private readonly deliveries: DeliveryAttemptsStore,
    private readonly config: AppConfig,
  ) {}

  /**
   * Whether a success changes anything, judged from the row read before the send: the common case
   * (a healthy endpoint, recently successful) skips the write and the row lock altogether. A failure
   * recorded concurrently after that read is reset by the next success that sees it.
   */
  successNeedsRecording(before: EndpointState, now = Date.now()): boolean {
    return (
      before.consecutive_failures !== 0 ||
      before.failing_since !== null ||
      before.last_success_at === null ||
      now - before.last_success_at.getTime() >= LAST_SUCCESS_PRECISION_MS
    );
  }

  recordSuccess(communityId: string, endpointId: string): Promise<void> {
    return this.endpoints.recordSuccess(communityId, endpointId);
  }

  /**
   * Counts the failure and auto-disables the endpoint when the streak has reached
   * WEBHOOK_AUTO_DISABLE_MIN_FAILURES and lasted WEBHOOK_AUTO_DISABLE_AFTER (a short outage of a
   * busy receiver piles up failures quickly but must not disable it). Returns whether this call
   * disabled it.
   */
  async recordFailure(communityId: string, endpointId: string): Promise<boolean> {
    await this.endpoints.recordFailure(communityId, endpointId);
    const failures = await this.endpoints.disableIfFailing(
      communityId,
      endpointId,
      this.config.WEBHOOK_AUTO_DISABLE_MIN_FAILURES,
      this.config.webhookAutoDisableAfterMs,
    );
    if (failures === null) return false;
    this.logger.warn({ msg: 'webhook endpoint auto-disabled', communityId, endpointId, failures });
    await this.deliveries.cancelWaiting(
      communityId,
      endpointId,
      `cancelled: endpoint auto-disabled after ${failures} consecutive failures and no success for ${this.config.WEBHOOK_AUTO_DISABLE_AFTER}`,
    );
    return true;
  }

  /** A 410 Gone: the receiver says the endpoint no longer exists, so stop at once. */
  async disableGone(communityId: string, endpointId: string): Promise<void> {
    await this.endpoints.disable(communityId, endpointId);
    this.logger.warn({
      msg: 'webhook endpoint disabled: the target answered 410 Gone',
      communityId,
      endpointId,
    });
    await this.deliveries.cancelWaiting(
      communityId,
      endpointId,
      'cancelled: endpoint disabled, the target answered 410 Gone',
    );
  }
}
