import { performance } from 'node:perf_hooks';
import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import type { Plan } from '../../../generated/prisma/enums';
import { DeliveryLogRetentionStore } from './delivery-log-retention.store';

const ENDPOINT_PAGE = 500;
const PRUNE_CHUNK = 1_000;

/**
 * How long to pause after a chunk that took `workedMs` so that the work stays within `dutyPercent` of
 * the time (docs/api.md#retention-of-the-delivery-log): work w then pause w·(100 − d)/d.
 */
export function pauseAfterChunkMs(workedMs: number, dutyPercent: number): number {
  return Math.round((workedMs * (100 - dutyPercent)) / dutyPercent);
}

/**
 * Keeps the delivery log from growing without bound (docs/api.md#retention-of-the-delivery-log): every
 * WEBHOOK_LOG_PRUNE_INTERVAL, deletes the attempts of messages whose last attempt at that endpoint is
 * older than the community's retention (WEBHOOK_LOG_RETENTION, or WEBHOOK_LOG_RETENTION_FREE on the FREE
 * plan), in chunks walking each endpoint's log from its oldest attempt, so no statement holds locks
 * for long or reads more than its chunk, paced to WEBHOOK_LOG_PRUNE_DUTY_PERCENT of the time so that the
 * deliveries meanwhile keep the database. The space a chunk frees is reused by the next inserts once
 * autovacuum has passed (the table's size stays flat:
 * bench/README.md#retention-of-the-delivery-log-benchdelivery-log-retentionmjs). Several workers pruning at
 * once is harmless: a row deleted twice is deleted once.
 */
@Injectable()
export class DeliveryLogRetention {
  private readonly logger = new Logger(DeliveryLogRetention.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;

  constructor(
    private readonly store: DeliveryLogRetentionStore,
    private readonly config: AppConfig,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.pruneSafely(), this.config.webhookLogPruneIntervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** How long a community on `plan` keeps its log. */
  retentionMs(plan: Plan): number {
    return plan === 'FREE' ? this.config.webhookLogRetentionFreeMs : this.config.webhookLogRetentionMs;
  }

  /** Deletes every attempt past retention at `now`; returns how many. */
  async prune(now = new Date()): Promise<number> {
    let deleted = 0;
    let after: string | null = null;
    for (;;) {
      const endpoints = await this.store.endpoints(after, ENDPOINT_PAGE);
      for (const endpoint of endpoints) {
        const cutoff = new Date(now.getTime() - this.retentionMs(endpoint.plan));
        let from: { createdAt: Date; id: string } | null = null;
        for (;;) {
          const startedAt = performance.now();
          const chunk = await this.store.pruneChunk(endpoint, cutoff, from, PRUNE_CHUNK);
          deleted += chunk.deleted;
          if (chunk.deleted > 0)
            await this.pause(
              pauseAfterChunkMs(performance.now() - startedAt, this.config.webhookLogPruneDutyPercent),
            );
          if (chunk.seen < PRUNE_CHUNK || !chunk.last) break;
          from = chunk.last;
        }
      }
      if (endpoints.length < ENDPOINT_PAGE) return deleted;
      after = endpoints[endpoints.length - 1].id;
    }
  }

  /** Waits between chunks: a method of its own, so that a test sees each pause the pacing asks for. */
  protected pause(ms: number): Promise<void> {
    return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
  }

  private async pruneSafely(): Promise<void> {
    if (this.running) return;
    this.running = this.prune().catch((err: Error) => {
      this.logger.warn({ msg: 'delivery log pruning failed, will retry', error: err.message });
      return 0;
    });
    const deleted = await this.running;
    this.running = undefined;
    if (deleted > 0) this.logger.log({ msg: 'delivery log pruned', deleted });
  }
}
