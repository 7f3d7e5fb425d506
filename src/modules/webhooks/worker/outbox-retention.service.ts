import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { AttemptStatsStore } from '../core/attempt-stats.store';
import { WorkerOutboxStore } from './outbox.store';

/** Relayed outbox rows are kept at least this long (for inspection), then deleted once no delivery needs them. */
export const OUTBOX_RETENTION_DAYS = 7;
const DAY_MS = 24 * 3600_000;
/** An endpoint's hourly figures are kept this long: the figures route's longest period (7d) and a day's margin. */
export const ATTEMPT_STATS_RETENTION_DAYS = 8;
const PRUNE_EVERY_MS = 10 * 60_000;
const PRUNE_CHUNK = 5_000;

/**
 * Keeps the outbox from growing without bound while keeping every event body a delivery may still
 * need: a relayed row is deleted once it was relayed OUTBOX_RETENTION_DAYS ago AND none of its
 * deliveries is PENDING or younger than WEBHOOK_MESSAGE_RETENTION (the delivery log shows the body
 * that was sent; a retry or a resend sends it again), nor missed by an endpoint less than
 * WEBHOOK_MESSAGE_RETENTION ago (recover's `missed` may still send it). Walks the primary key from the
 * oldest id in chunks, so no single statement holds locks for long; then forgets the missed events
 * raised twice that retention ago, and the endpoints' hourly figures older than
 * ATTEMPT_STATS_RETENTION_DAYS. Several workers pruning at once is harmless.
 */
@Injectable()
export class OutboxRetention {
  private readonly logger = new Logger(OutboxRetention.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;

  constructor(
    private readonly outbox: WorkerOutboxStore,
    private readonly config: AppConfig,
    private readonly stats: AttemptStatsStore,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.pruneSafely(), PRUNE_EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /**
   * Deletes the outbox rows no one needs any more (returns how many), then the missed events long
   * expired and the old hourly figures.
   */
  async prune(
    relayedRetentionMs = OUTBOX_RETENTION_DAYS * DAY_MS,
    messageRetentionMs = this.config.webhookMessageRetentionMs,
  ): Promise<number> {
    let deleted = 0;
    let after = 0n;
    for (;;) {
      // a chunk of candidates in id order, then those without a delivery that still needs the body
      const chunk = await this.outbox.pruneRelayed(
        after,
        PRUNE_CHUNK,
        relayedRetentionMs,
        messageRetentionMs,
      );
      deleted += chunk.deleted;
      if (chunk.seen < PRUNE_CHUNK || chunk.last === null) break;
      after = chunk.last;
    }
    // a missed event stays countable as expired for as long again as its body was kept
    for (let forgotten = PRUNE_CHUNK; forgotten === PRUNE_CHUNK;)
      forgotten = await this.outbox.forgetMissed(2 * messageRetentionMs, PRUNE_CHUNK);
    for (let pruned = PRUNE_CHUNK; pruned === PRUNE_CHUNK;)
      pruned = await this.stats.pruneOlderThan(ATTEMPT_STATS_RETENTION_DAYS * DAY_MS, PRUNE_CHUNK);
    return deleted;
  }

  private async pruneSafely(): Promise<void> {
    if (this.running) return;
    this.running = this.prune().catch((err: Error) => {
      this.logger.warn({ msg: 'outbox pruning failed, will retry', error: err.message });
      return 0;
    });
    await this.running;
    this.running = undefined;
  }
}
