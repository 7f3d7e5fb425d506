import type { ConnectionOptions } from 'bullmq';
import type { AppConfig } from '../../../config/app-config';
import { closeRedisClient, createRedisClient, RedisClient } from '../../../redis/redis-client';

/**
 * BullMQ's connections, made by the one Redis factory (a node or a cluster, as configured) and
 * handed to BullMQ as clients: a cluster can only be given as one. BullMQ does not close a client
 * it was given; DeliveryQueue and DeliveryWorker close theirs after the queue and the worker.
 * A worker's connection retries forever (maxRetriesPerRequest: null) so a Redis restart pauses it
 * instead of failing jobs; the producer fails fast instead, so that a relay or a retry never waits
 * on Redis: the PENDING rows in PostgreSQL are the schedule, and the sweep re-queues what an
 * enqueue missed. Neither has a keyPrefix (BullMQ refuses one): the queue's prefix does that.
 */
export function workerConnection(config: AppConfig): ConnectionOptions {
  return createRedisClient(config, 'queue-worker');
}

export function producerConnection(config: AppConfig): ConnectionOptions {
  return createRedisClient(config, 'queue-producer');
}

/** Closes the client a queue or worker was built with, once it is closed itself. */
export async function closeConnection(connection: ConnectionOptions | undefined): Promise<void> {
  if (connection && typeof (connection as Partial<RedisClient>).disconnect === 'function')
    await closeRedisClient(connection as RedisClient);
}
