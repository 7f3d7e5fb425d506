import { Injectable, Logger } from '@nestjs/common';
import { Job, Worker } from 'bullmq';
import type Redis from 'ioredis';
import { AppConfig } from '../../../config/app-config';
import { DELIVERY_JOB_OPTIONS, DELIVERY_QUEUE, DeliveryJobData } from './delivery-job';
import { DeliveryProcessor } from './delivery.processor';
import { EndpointSlots } from './endpoint-slots';
import { closeConnection, createWorkerConnection } from './redis-connections';

/** Taken over this often at most; past that it fails (a job that kills its worker every time). */
const MAX_STALLED_COUNT = 3;

/** The consumer side of the delivery queue: WORKER_CONCURRENCY attempts in flight per process. */
@Injectable()
export class DeliveryWorker {
  private readonly logger = new Logger(DeliveryWorker.name);
  private worker?: Worker<DeliveryJobData>;
  private connection?: Redis;

  constructor(
    private readonly processor: DeliveryProcessor,
    private readonly slots: EndpointSlots,
    private readonly config: AppConfig,
  ) {}

  start(): void {
    if (this.worker) return;
    this.connection = createWorkerConnection(this.config);
    // fairness (issue 10 §4): the whole attempt runs holding one of its endpoint's slots
    const run = (job: Job<DeliveryJobData>, token?: string) =>
      this.slots.run(job, token, () => this.processor.process(job.data));
    this.worker = new Worker<DeliveryJobData>(DELIVERY_QUEUE, run, {
      connection: this.connection,
      prefix: this.config.REDIS_KEY_PREFIX,
      concurrency: this.config.WORKER_CONCURRENCY,
      // a job whose worker died (lock expired) is taken over by the next stalled check
      stalledInterval: this.config.workerStalledIntervalMs,
      maxStalledCount: MAX_STALLED_COUNT,
      // renewed every half of this while the job runs; a send may take up to WEBHOOK_TIMEOUT
      lockDuration: Math.max(this.config.workerStalledIntervalMs, this.config.webhookTimeoutMs * 2),
      removeOnComplete: DELIVERY_JOB_OPTIONS.removeOnComplete as { age: number; count: number },
      removeOnFail: DELIVERY_JOB_OPTIONS.removeOnFail as { age: number; count: number },
    });
    this.worker.on('error', (err) => this.logger.warn(`delivery worker: ${err.message}`));
    this.worker.on('failed', (job, err) =>
      this.logger.error(
        `delivery job ${job?.id ?? '?'} failed (attempt ${job?.attemptsMade ?? '?'}): ${err.message}`,
      ),
    );
  }

  /**
   * Stops taking jobs and waits up to WORKER_SHUTDOWN_TIMEOUT for those in flight; past that they
   * are abandoned to the stalled-job check (another worker re-runs them: at-least-once).
   */
  async stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    const timeoutMs = this.config.workerShutdownTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const drained = await Promise.race([
      worker.close().then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
    ]);
    clearTimeout(timer);
    if (!drained) {
      this.logger.warn(
        `in-flight deliveries did not finish within ${timeoutMs} ms; leaving them to be re-run`,
      );
      await worker.close(true).catch(() => undefined);
    }
    if (this.connection) await closeConnection(this.connection);
  }
}
