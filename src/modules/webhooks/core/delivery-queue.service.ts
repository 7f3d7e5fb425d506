import { Logger, OnApplicationShutdown } from '@nestjs/common';
import type { Queue, QueueOptions } from 'bullmq';
import type { AppConfig } from '../../../config/app-config';
import { DELIVERY_JOB_OPTIONS, DELIVERY_QUEUE, DeliveryJobData, deliveryJobId } from './delivery-job';
import { queuePrefix } from '../../../redis/redis-client';
import { closeConnection, producerConnection } from './redis-connections';

/** The queue's options, in both processes: prefix `{REDIS_KEY_PREFIX}`, a fail-fast connection. */
export function deliveryQueueOptions(config: AppConfig): QueueOptions {
  // the prefix keeps environments and test runs from sharing a queue; a hash tag, for a cluster
  return {
    connection: producerConnection(config),
    prefix: queuePrefix(config),
    defaultJobOptions: DELIVERY_JOB_OPTIONS,
  };
}

/**
 * The producer side of the delivery queue: the relay's first attempts, the processor's retries and
 * the sweep's re-queues in the worker, resends and recovers in the API. A job is a copy of a
 * PENDING row, so every add is a best effort. Nothing here imports BullMQ itself: the worker hands
 * in the queue @nestjs/bullmq registered (`of`), the API opens its own on its first add
 * (`openedOnFirstUse`), so an API that never resends never loads BullMQ
 * (docs/architecture.md#what-each-process-loads).
 */
export class DeliveryQueue implements OnApplicationShutdown {
  private readonly logger = new Logger(DeliveryQueue.name);
  private opened?: Queue<DeliveryJobData>;

  private constructor(private readonly open: () => Queue<DeliveryJobData>) {}

  /** Around a queue that is open already (the worker's, which its processor shares). */
  static of(queue: Queue<DeliveryJobData>): DeliveryQueue {
    const delivery = new DeliveryQueue(() => queue);
    void delivery.queue; // its errors are logged from now on
    return delivery;
  }

  /** A queue of its own, opened (and BullMQ required) on the first call that needs it. */
  static openedOnFirstUse(config: AppConfig): DeliveryQueue {
    return new DeliveryQueue(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { Queue } = require('bullmq') as typeof import('bullmq');
      return new Queue<DeliveryJobData>(DELIVERY_QUEUE, deliveryQueueOptions(config));
    });
  }

  get queue(): Queue<DeliveryJobData> {
    if (!this.opened) {
      this.opened = this.open();
      this.opened.on('error', (err) => this.logger.warn({ msg: 'delivery queue error', error: err.message }));
    }
    return this.opened;
  }

  /** One job per attempt; an id that already exists (a live job) is not added again. */
  async addAll(jobs: DeliveryJobData[], delayMs = 0): Promise<void> {
    for (let i = 0; i < jobs.length; i += ADD_BULK_CHUNK) {
      await this.queue.addBulk(
        jobs.slice(i, i + ADD_BULK_CHUNK).map((data) => ({
          name: data.eventType,
          data,
          opts: { jobId: deliveryJobId(data.messageId, data.endpointId, data.attempt), delay: delayMs },
        })),
      );
    }
  }

  /**
   * The sweep's re-add of attempts that are due in PostgreSQL but have no live job. A job id that
   * survives only as a finished job (one BullMQ itself failed after its retries, while the database
   * was down, say) would make the add a no-op and leave the attempt waiting forever: such finished
   * jobs are removed first (one look per page, sent at once; a live job is never touched).
   */
  async requeue(jobs: DeliveryJobData[]): Promise<void> {
    const ids = jobs.map((j) => deliveryJobId(j.messageId, j.endpointId, j.attempt));
    // sent together: the connection carries them in one round trip
    const states = await Promise.all(ids.map((id) => this.queue.getJobState(id)));
    const finished = ids.filter((_, n) => states[n] === 'failed' || states[n] === 'completed');
    for (const id of finished) await this.queue.remove(id);
    if (finished.length > 0)
      this.logger.warn({
        msg: 'finished jobs of waiting deliveries removed to queue them again',
        jobs: finished.length,
      });
    await this.addAll(jobs);
  }

  async addDelayed(data: DeliveryJobData, delayMs: number): Promise<void> {
    await this.queue.add(data.eventType, data, {
      jobId: deliveryJobId(data.messageId, data.endpointId, data.attempt),
      delay: delayMs,
    });
  }

  /** Closes the queue, then the connection it was given (BullMQ leaves a given client open). */
  async close(): Promise<void> {
    // a queue never opened has nothing to close (and is not opened now)
    const queue = this.opened;
    if (!queue) return;
    await queue.close().catch(() => undefined);
    await closeConnection(queue.opts.connection);
  }

  onApplicationShutdown(): Promise<void> {
    return this.close();
  }
}

/** Keeps each Redis round trip (a MULTI of scripts) to a size that never blocks Redis for long. */
const ADD_BULK_CHUNK = 1000;
