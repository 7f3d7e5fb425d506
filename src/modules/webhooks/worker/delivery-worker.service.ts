import { Injectable, Logger } from '@nestjs/common';
import type { Worker } from 'bullmq';
import { AppConfig } from '../../../config/app-config';
import { DeliveryProcessor } from './delivery.processor';
import { closeConnection } from '../core/redis-connections';

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
    const worker = this.processor.worker;
    const timeoutMs = this.config.workerShutdownTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const drained = await Promise.race([
      worker.close().then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
    ]);
    clearTimeout(timer);
    if (!drained) {
      this.logger.warn({
        msg: 'in-flight deliveries did not finish in time; the sweep will close them',
        timeoutMs,
      });
      await worker.close(true).catch(() => undefined);
    }
    await this.running;
  }
}
