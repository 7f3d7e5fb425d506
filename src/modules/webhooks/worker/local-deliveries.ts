import { Injectable, Logger } from '@nestjs/common';
import { settledWithin } from '../../../common/async/settled-within';
import { AppConfig } from '../../../config/app-config';
import type { DeliveryJobData } from '../core/delivery-job';
import { DeliveryQueue } from '../core/delivery-queue.service';
import { DeliveryProcessor } from './delivery.processor';

/** This worker runs at most WORKER_CONCURRENCY / this of the attempts it relays without their job. */
const LOCAL_SHARE = 5;

/**
 * The attempts a worker relays, run by that worker at once instead of through the queue, as far
 * as it has room: an attempt's path then skips the job's add to Redis and its pick-up by a worker
 * (the latency from commit to receipt). PostgreSQL still holds every attempt's state (the relay's
 * PENDING row): a worker that dies before the claim leaves the row due for the sweep to queue, one
 * that dies after it leaves a claim the sweep closes as an unknown outcome and retries, exactly as
 * for a queued job. Whatever does not fit goes to the queue: beyond WORKER_CONCURRENCY / 5 local
 * runs, an endpoint whose slots are all taken (its cap holds across workers: the slot is taken in
 * Redis), an attempt whose run failed on the database (the job's retries then take over).
 */
@Injectable()
export class LocalDeliveries {
  private readonly logger = new Logger(LocalDeliveries.name);
  private readonly limit: number;
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly processor: DeliveryProcessor,
    private readonly queue: DeliveryQueue,
    config: AppConfig,
  ) {
    this.limit = Math.floor(config.WORKER_CONCURRENCY / LOCAL_SHARE);
  }

  /** Starts the attempts there is room for now; returns the others, for the queue. */
  offer(jobs: DeliveryJobData[]): DeliveryJobData[] {
    const room = this.stopped ? 0 : Math.max(0, this.limit - this.running.size);
    if (room === 0) return jobs;
    for (const job of jobs.slice(0, room)) {
      const run: Promise<void> = this.runOrQueue(job).finally(() => this.running.delete(run));
      this.running.add(run);
    }
    return jobs.slice(room);
  }

  private async runOrQueue(job: DeliveryJobData): Promise<void> {
    try {
      if (await this.processor.runIfSlotFree(job)) return;
    } catch (err) {
      this.logger.warn({
        msg: 'delivery attempt run by its relay failed; queued',
        messageId: job.messageId,
        endpointId: job.endpointId,
        error: (err as Error).message,
      });
    }
    await this.queue.addAll([job]).catch((err: Error) =>
      this.logger.warn({
        msg: 'delivery job not queued; the sweep will queue it from its PENDING row',
        messageId: job.messageId,
        endpointId: job.endpointId,
        error: err.message,
      }),
    );
  }

  /** Takes no more, and waits up to `timeoutMs` for the running ones (past that, the sweep has them). */
  async stop(timeoutMs: number): Promise<void> {
    this.stopped = true;
    await settledWithin(Promise.allSettled([...this.running]), timeoutMs);
  }
}
