import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Queue } from 'bullmq';
import type Redis from 'ioredis';
import { AppConfig } from '../../../config/app-config';
import { DELIVERY_JOB_OPTIONS, DELIVERY_QUEUE, DeliveryJobData, deliveryJobId } from './delivery-job';
import { closeConnection, createProducerConnection } from './redis-connections';

/**
 * The producer side of the delivery queue: the relay's first attempts, the processor's retries,
 * and (in the API) resend and recover.
 */
@Injectable()
export class DeliveryQueue implements OnApplicationShutdown {
  private readonly logger = new Logger(DeliveryQueue.name);
  private readonly connection: Redis;
  readonly queue: Queue<DeliveryJobData>;

  constructor(config: AppConfig) {
    this.connection = createProducerConnection(config);
    // Queue prefix = REDIS_KEY_PREFIX, so environments and test runs never share a queue.
    this.queue = new Queue<DeliveryJobData>(DELIVERY_QUEUE, {
      connection: this.connection,
      prefix: config.REDIS_KEY_PREFIX,
      defaultJobOptions: DELIVERY_JOB_OPTIONS,
    });
    this.queue.on('error', (err) => this.logger.warn(`delivery queue: ${err.message}`));
  }

  /** One job per (event, endpoint); an id that already exists is not added again. */
  async addAll(jobs: DeliveryJobData[]): Promise<void> {
    for (let i = 0; i < jobs.length; i += ADD_BULK_CHUNK) {
      await this.queue.addBulk(
        jobs.slice(i, i + ADD_BULK_CHUNK).map((data) => ({
          name: data.eventType,
          data,
          opts: { jobId: deliveryJobId(data.messageId, data.endpointId, data.attempt) },
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

  private closing?: Promise<void>;

  /** Idempotent: the worker closes it in order (WorkerRuntime), the API on shutdown. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.queue.close().catch(() => undefined);
      await closeConnection(this.connection);
    })();
    return this.closing;
  }

  onApplicationShutdown(): Promise<void> {
    return this.close();
  }
}

/** Keeps each Redis round trip (a MULTI of scripts) to a size that never blocks Redis for long. */
const ADD_BULK_CHUNK = 1000;
