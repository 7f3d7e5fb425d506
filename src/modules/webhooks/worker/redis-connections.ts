import type { ConnectionOptions } from 'bullmq';
import type { AppConfig } from '../../../config/app-config';

/**
 * BullMQ's connections, as options (BullMQ opens and closes them itself; the API's keyPrefix'ed
 * client cannot be shared because BullMQ manages key prefixes). A worker's connection retries
 * forever (maxRetriesPerRequest: null) so a Redis restart pauses it instead of failing jobs; the
 * producer fails fast instead, so that a relay or a retry never waits on Redis: the PENDING rows in
 * PostgreSQL are the schedule, and the sweep re-queues what an enqueue missed.
 */
export function workerConnection(config: AppConfig): ConnectionOptions {
  return { url: config.REDIS_URL, maxRetriesPerRequest: null, enableReadyCheck: true };
}

export function producerConnection(config: AppConfig): ConnectionOptions {
  return {
    url: config.REDIS_URL,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: (times: number) => Math.min(times * 100, 2000),
  };
}
