import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import type { Queue, QueueOptions } from 'bullmq';
import type { AppConfig } from '../../../config/app-config';
import { DELIVERY_JOB_OPTIONS, DELIVERY_QUEUE, DeliveryJobData, deliveryJobId } from './delivery-job';
import { producerConnection } from './redis-connections';

/** The queue as BullModule.registerQueueAsync builds it: prefix REDIS_KEY_PREFIX, a fail-fast connection. */
export function deliveryQueueOptions(config: AppConfig): QueueOptions {
  // the prefix keeps environments and test runs from sharing a queue
  return {
    connection: producerConnection(config),
    prefix: config.REDIS_KEY_PREFIX,
    defaultJobOptions: DELIVERY_JOB_OPTIONS,
  };
}

/**
 * The producer side of the delivery queue: the relay's first attempts, the processor's retries and
 * the sweep's re-queues. A job is a copy of a PENDING row, so every add is a best effort.
 */
@Injectable()
export class DeliveryQueue {
  private readonly logger = new Logger(DeliveryQueue.name);

  constructor(@InjectQueue(DELIVERY_QUEUE) readonly queue: Queue<DeliveryJobData>) {
    this.queue.on('error', (err) => this.logger.warn({ msg: 'delivery queue error', error: err.message }));
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

  async addDelayed(data: DeliveryJobData, delayMs: number): Promise<void> {
    await this.queue.add(data.eventType, data, {
      jobId: deliveryJobId(data.messageId, data.endpointId, data.attempt),
      delay: delayMs,
    });
  }

  async close(): Promise<void> {
    await this.queue.close().catch(() => undefined);
  }
}

/** Keeps each Redis round trip (a MULTI of scripts) to a size that never blocks Redis for long. */
const ADD_BULK_CHUNK = 1000;
