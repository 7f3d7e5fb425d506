import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { PrismaService } from '../../../prisma/prisma.service';
import {
  AbandonedAttempt,
  ClaimExpiry,
  DeliverySweepStore,
  DueAttempt,
  OUTCOME_UNKNOWN,
} from './delivery-sweep.store';
import { longestSendMs, scheduleFor } from '../core/delivery-settings';
import type { DeliveryJobData } from '../core/delivery-job';
import { DeliveryQueue } from '../core/delivery-queue.service';
import { EndpointHealth } from './endpoint-health.service';
import { NextAttempt, nextRetry } from './retry-policy';

/**
 * A claim older than its send's timeout (the endpoint's `timeoutMs`, else WEBHOOK_TIMEOUT) plus this
 * belongs to a worker that stopped: a live worker closes its attempt within the timeout plus one statement.
 */
export const CLAIM_MARGIN_MS = 10_000;
/** Rows per page of the sweep's queries (and per Redis round trip). */
const SWEEP_PAGE = 1_000;
/** Pages of due attempts re-queued per sweep; a larger backlog is finished by the next sweeps. */
const MAX_DUE_PAGES = 100;
/** pg_try_advisory_xact_lock key: one sweep at a time across every worker. */
const SWEEP_LOCK_KEY = 7_410_010_002;
export const BODY_GONE = 'event body no longer stored';

export interface SweepResult {
  /** false when another worker's sweep held the lock */
  ran: boolean;
  abandoned: number;
  requeued: number;
}

/**
 * Keeps PostgreSQL the owner of the delivery schedule, Redis a cache of it. Every
 * WEBHOOK_SWEEP_INTERVAL, in one worker at a time (a transaction-scoped advisory lock), it
 *
 * 1. closes attempts claimed longer ago than a send can take (the worker died mid-send) as FAILED
 *    "worker stopped; outcome unknown", writes their next attempt in the same commit and counts the
 *    failure like any other (auto-disable included);
 * 2. re-adds the queue job of every unclaimed PENDING attempt that is due. Job ids are
 *    deterministic, so a live job is not added twice, and the claim makes any duplicate job a
 *    no-op: whatever Redis lost (FLUSHALL, an empty replica promoted), a due attempt waits at most
 *    one interval and is sent once.
 */
@Injectable()
export class DeliverySweep {
  private readonly logger = new Logger(DeliverySweep.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<SweepResult | undefined>;
  private readonly scheduleMs: number[];

  constructor(
    private readonly prisma: PrismaService,
    private readonly deliveries: DeliverySweepStore,
    private readonly health: EndpointHealth,
    private readonly queue: DeliveryQueue,
    private readonly config: AppConfig,
  ) {
    this.scheduleMs = config.webhookRetryScheduleMs;
  }

  start(): void {
    if (this.timer) return;
    // once at start (a worker restarted with Redis empty catches up at once), then every interval
    void this.sweepSafely();
    this.timer = setInterval(() => void this.sweepSafely(), this.config.webhookSweepIntervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  async sweep(): Promise<SweepResult> {
    const expiry: ClaimExpiry = {
      platformTimeoutMs: this.config.webhookTimeoutMs,
      longestSendMs: longestSendMs(this.config),
      marginMs: CLAIM_MARGIN_MS,
    };
    const result = await this.prisma.$transaction(
      async (tx) => {
        const [{ locked }] = await tx.$queryRaw<{ locked: boolean }[]>`
          SELECT pg_try_advisory_xact_lock(${SWEEP_LOCK_KEY}::bigint) AS locked`;
        if (!locked) return null;

        const abandoned = await this.deliveries.closeAbandoned(tx, expiry, SWEEP_PAGE);
        // each on its endpoint's schedule as it is now
        const retries = abandoned
          .filter((of) => !of.test)
          .map((of) => ({
            of,
            next: nextRetry(scheduleFor(of.retryScheduleMs, this.scheduleMs), of.attempt, null),
          }))
          .filter((r): r is { of: AbandonedAttempt; next: NextAttempt } => r.next !== null);
        await this.deliveries.insertRetries(tx, retries);

        let requeued = 0;
        let after: DueAttempt | null = null;
        for (let page = 0; page < MAX_DUE_PAGES; page++) {
          const due = await this.deliveries.dueUnclaimed(
            tx,
            after && { at: after.nextAttemptAt, id: after.id },
            SWEEP_PAGE,
          );
          const bodiless = due.filter((d) => d.payload === null);
          await this.deliveries.failWaiting(
            tx,
            bodiless.map((d) => d.id),
            BODY_GONE,
          );
          const jobs = due.filter((d) => d.payload !== null).map(toJob);
          if (jobs.length > 0) {
            // Redis down: stop here; the PENDING rows wait for the next sweep
            const added = await this.queue.requeue(jobs).then(
              () => true,
              (err: Error) => {
                this.logger.warn({ msg: 'sweep could not re-queue due deliveries', error: err.message });
                return false;
              },
            );
            if (!added) break;
            requeued += jobs.length;
          }
          if (due.length < SWEEP_PAGE) break;
          after = due[due.length - 1];
        }
        return { abandoned, retries, requeued };
      },
      { timeout: 120_000, maxWait: 10_000 },
    );
    if (!result) return { ran: false, abandoned: 0, requeued: 0 };

    const retryOf = new Map(result.retries.map((r) => [r.of.id, r.next]));
    for (const attempt of result.abandoned) {
      const next = retryOf.get(attempt.id) ?? null;
      this.logger.warn({
        msg: 'delivery attempt closed: its worker stopped mid-send',
        messageId: attempt.messageId,
        endpointId: attempt.endpointId,
        communityId: attempt.communityId,
        attempt: attempt.attempt,
        requestId: attempt.requestId,
        durationMs: null,
        outcome: 'FAILED',
        error: OUTCOME_UNKNOWN,
        nextAttempt: next?.attempt ?? null,
      });
      // a test delivery is a probe: it leaves the endpoint's failure counter alone; the last attempt
      // of the endpoint's schedule exhausts its message, as when its send fails
      if (!attempt.test)
        await this.health.recordFailure(
          attempt.communityId,
          attempt.endpointId,
          next
            ? null
            : { messageId: attempt.messageId, eventType: attempt.eventType, attempts: attempt.attempt },
        );
    }
    // the retries' jobs come from the next sweeps once due (their rows are committed); the body is
    // not at hand here, and a retry is at least one delay of its schedule away anyway
    if (result.abandoned.length > 0 || result.requeued > 0) {
      this.logger.log({
        msg: 'delivery sweep',
        abandoned: result.abandoned.length,
        requeued: result.requeued,
      });
    }
    return { ran: true, abandoned: result.abandoned.length, requeued: result.requeued };
  }

  private async sweepSafely(): Promise<void> {
    if (this.running) return;
    this.running = this.sweep().catch((err: Error) => {
      this.logger.warn({ msg: 'delivery sweep failed, will retry', error: err.message });
      return undefined;
    });
    await this.running;
    this.running = undefined;
  }
}

function toJob(due: DueAttempt): DeliveryJobData {
  return {
    communityId: due.communityId,
    endpointId: due.endpointId,
    messageId: due.messageId,
    eventType: due.eventType,
    attempt: due.attempt,
    outboxId: due.outboxId ?? '',
    payload: due.payload!,
    ...(due.fifo ? { fifo: true as const } : {}),
  };
}
