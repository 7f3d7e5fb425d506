import { Injectable, Logger } from '@nestjs/common';
import type { Worker } from 'bullmq';
import { AppConfig } from '../../../config/app-config';
import { DeliveryProcessor } from './delivery.processor';
import { closeConnection } from '../core/redis-connections';
import { settledWithin } from '../../../common/async/settled-within';

/**
 * Runs and stops the BullMQ worker that @nestjs/bullmq built for DeliveryProcessor
 * (WORKER_CONCURRENCY attempts in flight per process).
 */
@Injectable()
export class DeliveryWorker {
  private readonly logger = new Logger(DeliveryWorker.name);
  private running?: Promise<void>;

  constructor(
    private readonly processor: DeliveryProcessor,
    private readonly config: AppConfig,
  ) {}

  start(): void {
    if (this.running) return;
    const worker = this.processor.worker;
    worker.on('error', (err) => this.logger.warn({ msg: 'delivery worker error', error: err.message }));
    worker.on('failed', (job, err) =>
      this.logger.error({
        msg: 'delivery job failed',
        jobId: job?.id,
        messageId: job?.data.messageId,
        endpointId: job?.data.endpointId,
        communityId: job?.data.communityId,
        attempt: job?.data.attempt,
        jobAttempts: job?.attemptsMade,
        error: err.message,
      }),
    );
    this.running = worker
      .run()
      .catch((err: Error) =>
        this.logger.error({ msg: 'delivery worker stopped on an error', error: err.message }),
      );
  }

  /**
   * Stops taking jobs and waits up to WORKER_SHUTDOWN_TIMEOUT for those in flight; past that they
   * are abandoned: their claims expire and the sweep closes them as "worker stopped; outcome unknown".
   */
  async stop(): Promise<void> {
    if (this.running) await this.drain();
    // BullMQ leaves the client it was given open; the worker is closed now (or was never run)
    const worker = this.registeredWorker();
    if (worker) await closeConnection(worker.opts.connection);
  }

  /** The BullMQ worker, or none when the context was never initialised (its lazy client never connected). */
  private registeredWorker(): Worker | undefined {
    try {
      return this.processor.worker;
    } catch {
      return undefined;
    }
  }

  private async drain(): Promise<void> {
    this.processor.stopTakingWork();
    const worker = this.processor.worker;
    const timeoutMs = this.config.workerShutdownTimeoutMs;
    const running = this.running;
    const drained = await settledWithin(
      worker.close().then(() => running),
      timeoutMs,
    );
    if (drained) return;
    // Not retried with close(true): BullMQ hands back the close already under way, and that one can
    // wait for ever. ioredis emits no 'end' for a connection closed while it waits to reconnect (Redis
    // down), and BullMQ's close waits for that 'end' (taskforcesh/bullmq#4656). Whatever is still in
    // flight keeps its claim until it expires; then the sweep closes it.
    this.logger.warn({
      msg: 'in-flight deliveries or the queue connection did not finish in time; the sweep will close what was in flight',
      timeoutMs,
    });
  }
}
