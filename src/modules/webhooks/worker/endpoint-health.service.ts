import { Injectable, Logger } from '@nestjs/common';
import { GroupCommit } from '../../../common/batching/group-commit';
import { AppConfig } from '../../../config/app-config';
import { PrismaService } from '../../../prisma/prisma.service';
import { OutboxService } from '../../events/outbox.service';
import { DeliveryAttemptsStore, HOT_PATH_BATCH_SIZE, HOT_PATH_BATCHES } from './delivery-attempts.store';
import {
  EndpointState,
  LAST_SUCCESS_PRECISION_MS,
  RecordedSuccess,
  WebhookEndpointsStore,
} from '../core/webhook-endpoints.store';
import { OPERATIONAL_EVENT_TYPES, urlForOperationalEvents } from '../core/webhook-operational.events';

export type { EndpointState } from '../core/webhook-endpoints.store';

/** The message whose last scheduled attempt just failed (webhook.message.exhausted). */
export interface ExhaustedMessage {
  messageId: string;
  eventType: string;
  attempts: number;
}

/**
 * The failure counter and auto-disable (docs/product-decisions.md#5-webhooks, "Auto-disable"), applied
 * after each attempt, and the operational events they raise ("Operational events"): each is written to
 * the outbox in the transaction that changes the endpoint's state, so it is raised exactly once per
 * occurrence and as durable as any other event.
 */
/** How often a transaction PostgreSQL ended as a deadlock's victim is run (it is rare and transient). */
const DEADLOCK_TRIES = 3;

/** PostgreSQL's deadlock_detected (40P01), as pg or Prisma reports it. */
function isDeadlock(err: unknown): boolean {
  return err instanceof Error && (/40P01/.test(err.message) || (err as { code?: string }).code === '40P01');
}

@Injectable()
export class EndpointHealth {
  private readonly logger = new Logger(EndpointHealth.name);
  /** endpoints whose success this process is recording now (recordSuccess) */
  private readonly recordingSuccess = new Set<string>();
  /**
   * The common case of recordSuccess, many endpoints to a statement: one event fanned out to a
   * thousand endpoints notes a thousand first successes, and one statement each was most of the
   * worker's statements (bench/README.md#delivery-fan-out-benchdelivery-fanoutmjs).
   */
  private readonly quietSuccesses: GroupCommit<
    { communityId: string; endpointId: string },
    RecordedSuccess | null
  >;

  constructor(
    private readonly prisma: PrismaService,
    private readonly endpoints: WebhookEndpointsStore,
    private readonly deliveries: DeliveryAttemptsStore,
    private readonly outbox: OutboxService,
    private readonly config: AppConfig,
  ) {
    this.quietSuccesses = new GroupCommit(
      (items) => this.endpoints.recordSuccesses(this.prisma, items, { keepAnnounced: true }),
      { maxConcurrentBatches: HOT_PATH_BATCHES, maxBatchSize: HOT_PATH_BATCH_SIZE },
    );
  }

  /** The streak length that raises webhook.endpoint.failing: half the auto-disable count, rounded up. */
  get failingAt(): number {
    return Math.ceil(this.config.WEBHOOK_AUTO_DISABLE_MIN_FAILURES / 2);
  }

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

  /**
   * Resets the streak; the first success after webhook.endpoint.failing raises webhook.endpoint.recovered.
   * One at a time per endpoint in this process: the sends of a busy endpoint that all read the row before
   * its last success was noted (at start, then once per LAST_SUCCESS_PRECISION_MS) all need recording,
   * and each would queue on the endpoint's row lock to write the same reset; three or more at once made
   * PostgreSQL find a deadlock among them (bench/README.md#delivery-throughput-benchdelivery-throughputmjs).
   * A success while one is being recorded adds nothing that one does not write, so it is skipped.
   * Across workers a deadlock victim is tried again.
   */
  async recordSuccess(communityId: string, endpointId: string): Promise<void> {
    if (this.recordingSuccess.has(endpointId)) return;
    this.recordingSuccess.add(endpointId);
    try {
      for (let tries = 1; ; tries++) {
        try {
          // the common case in one statement, shared with other endpoints' successes: no failing was
          // announced, so no event goes with the reset
          const quiet = await this.quietSuccesses.call({ communityId, endpointId });
          if (!quiet?.wasAnnounced) return;
          await this.prisma.$transaction(async (tx) => {
            const recovered = await this.endpoints.recordSuccess(tx, communityId, endpointId, {
              keepAnnounced: false,
            });
            if (recovered?.wasAnnounced && recovered.url !== null)
              await this.outbox.record(tx, communityId, 'webhook.endpoint.recovered', {
                endpointId,
                url: urlForOperationalEvents(recovered.url),
              });
          });
          return;
        } catch (err) {
          if (tries >= DEADLOCK_TRIES || !isDeadlock(err)) throw err;
        }
      }
    } finally {
      this.recordingSuccess.delete(endpointId);
    }
  }

  /**
   * Counts the failure and auto-disables the endpoint when the streak has reached
   * WEBHOOK_AUTO_DISABLE_MIN_FAILURES and lasted WEBHOOK_AUTO_DISABLE_AFTER (a short outage of a
   * busy receiver piles up failures quickly but must not disable it). Raises failing when the
   * streak reaches half that count, disabled when this call disabled it, and exhausted when
   * `exhausted` names a message that has no attempt left (never for an operational event). Returns
   * whether this call disabled the endpoint.
   */
  async recordFailure(
    communityId: string,
    endpointId: string,
    exhausted: ExhaustedMessage | null = null,
  ): Promise<boolean> {
    const failures = await this.prisma.$transaction(async (tx) => {
      const counted = await this.endpoints.recordFailure(tx, communityId, endpointId, this.failingAt);
      if (!counted) return null; // the endpoint was deleted meanwhile
      const { consecutiveFailures } = counted;
      const url = urlForOperationalEvents(counted.url);
      if (counted.announce)
        await this.outbox.record(tx, communityId, 'webhook.endpoint.failing', {
          endpointId,
          url,
          consecutiveFailures,
        });
      if (exhausted && !OPERATIONAL_EVENT_TYPES.includes(exhausted.eventType))
        await this.outbox.record(tx, communityId, 'webhook.message.exhausted', {
          endpointId,
          url,
          ...exhausted,
        });
      const disabled = await this.endpoints.disableIfFailing(
        tx,
        communityId,
        endpointId,
        this.config.WEBHOOK_AUTO_DISABLE_MIN_FAILURES,
        this.config.webhookAutoDisableAfterMs,
      );
      if (disabled === null) return null;
      await this.outbox.record(tx, communityId, 'webhook.endpoint.disabled', {
        endpointId,
        url,
        reason: 'failing',
        consecutiveFailures: disabled,
      });
      // in the same commit: nobody sees the endpoint disabled with retries still waiting
      await this.deliveries.cancelWaiting(
        communityId,
        endpointId,
        `cancelled: endpoint auto-disabled after ${disabled} consecutive failures and no success for ${this.config.WEBHOOK_AUTO_DISABLE_AFTER}`,
        tx,
      );
      return disabled;
    });
    if (failures === null) return false;
    this.logger.warn({ msg: 'webhook endpoint auto-disabled', communityId, endpointId, failures });
    return true;
  }

  /** A 410 Gone: the receiver says the endpoint no longer exists, so stop at once. */
  async disableGone(communityId: string, endpointId: string): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const disabled = await this.endpoints.disable(tx, communityId, endpointId);
      if (disabled)
        await this.outbox.record(tx, communityId, 'webhook.endpoint.disabled', {
          endpointId,
          url: urlForOperationalEvents(disabled.url),
          reason: 'gone',
          consecutiveFailures: disabled.consecutiveFailures,
        });
      await this.deliveries.cancelWaiting(
        communityId,
        endpointId,
        'cancelled: endpoint disabled, the target answered 410 Gone',
        tx,
      );
    });
    this.logger.warn({
      msg: 'webhook endpoint disabled: the target answered 410 Gone',
      communityId,
      endpointId,
    });
  }
}
