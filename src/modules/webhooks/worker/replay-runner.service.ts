import { Injectable, Logger } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { AppConfig } from '../../../config/app-config';
import { MetricsRegistry } from '../../../metrics/metrics-registry';
import { DeliveryQueue } from '../core/delivery-queue.service';
import { ReplayBatchesStore } from './replay-batches.store';

/**
 * Works through the bulk replays (docs/api.md#bulk-replay), one batch per transaction
 * (ReplayBatchesStore.takeBatch), then enqueues that batch's attempts: the normal delivery path sends them,
 * with its rate limits, FIFO order and in-flight caps. Batches follow each other at once while there is work,
 * and the loop sleeps WEBHOOK_REPLAY_INTERVAL when there is none, or when every unfinished replay already has
 * WEBHOOK_REPLAY_MAX_PENDING attempts waiting (so a replay of millions never floods the queue nor an
 * endpoint). Any number of workers may run it: each batch holds its replay's row.
 */
@Injectable()
export class ReplayRunner {
  private readonly logger = new Logger(ReplayRunner.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = true;
  /** set by stop(): the loop ends after the batch under way */
  private halted = false;
  private readonly queuedByReplays: Counter;

  constructor(
    private readonly batches: ReplayBatchesStore,
    private readonly queue: DeliveryQueue,
    private readonly config: AppConfig,
    { registry }: MetricsRegistry,
  ) {
    const registers = [registry];
    this.queuedByReplays = new Counter({
      name: 'webhook_replay_messages_queued_total',
      help: 'Delivery attempts queued by bulk replays',
      registers,
    });
    const logger = this.logger;
    new Gauge({
      name: 'webhook_replays_running',
      help: 'Bulk replays a worker is taking batches of (queued ones not counted until their first batch)',
      registers,
      async collect() {
        try {
          this.set(await batches.countRunning());
        } catch (err) {
          logger.warn(`metric webhook_replays_running unknown: ${(err as Error).message}`);
          this.set(NaN);
        }
      },
    });
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.halted = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.halted = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /**
   * Takes batches until there is nothing to take or every replay is held back; returns how many attempts it
   * queued. The loop's step, also called by tests.
   */
  async runOnce(): Promise<number> {
    let queued = 0;
    const heldBack = new Set<string>();
    while (!this.halted) {
      const batch = await this.batches.takeBatch(
        this.config.WEBHOOK_REPLAY_BATCH,
        this.config.WEBHOOK_REPLAY_MAX_PENDING,
      );
      if (!batch) break;
      if (batch.heldBack) {
        // each unfinished replay held back once in this round: wait for the endpoints
        if (heldBack.has(batch.replayId)) break;
        heldBack.add(batch.replayId);
        continue;
      }
      heldBack.clear();
      await this.enqueue(batch.jobs);
      queued += batch.jobs.length;
      if (batch.done) this.logger.log({ msg: 'replay done', replayId: batch.replayId });
    }
    return queued;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.runOnce()
        .catch((err: Error) => {
          this.logger.warn({ msg: 'replay batch failed, will retry', error: err.message });
          return 0;
        })
        .then(() => this.schedule(this.config.webhookReplayIntervalMs));
    }, delayMs);
    this.timer.unref();
  }

  private async enqueue(jobs: Parameters<DeliveryQueue['addAll']>[0]): Promise<void> {
    if (jobs.length === 0) return;
    this.queuedByReplays.inc(jobs.length);
    try {
      await this.queue.addAll(jobs);
    } catch (err) {
      // the rows are PENDING and due: the sweep sends them once the queue is back
      this.logger.warn(
        { err, queued: jobs.length },
        'replayed attempts not enqueued; the sweep will send them',
      );
    }
  }
}
