import Redis from 'ioredis';
import type { AppConfig } from '../../../config/app-config';

/**
 * BullMQ needs its own connections (it manages key prefixes itself, so the API's keyPrefix'ed
 * client cannot be shared). A worker's connection must retry forever (maxRetriesPerRequest: null)
 * so a Redis restart pauses it instead of failing jobs; a producer fails fast instead, so that the
 * relay's transaction rolls back at once and the outbox rows wait for Redis to come back.
 */
export function createWorkerConnection(config: AppConfig): Redis {
  return new Redis(config.REDIS_URL, { maxRetriesPerRequest: null, enableReadyCheck: true });
}

export function createProducerConnection(config: AppConfig): Redis {
  return new Redis(config.REDIS_URL, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: (times) => Math.min(times * 100, 2000),
  });
}

export async function closeConnection(redis: Redis): Promise<void> {
  await redis.quit().catch(() => redis.disconnect());
}
