import { Logger } from '@nestjs/common';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { AppError } from '../errors/app-error';
import { loadConfig } from '../../config/app-config';
import { failClosedRateLimits } from './rate-limit.policies';
import { RedisTokenBucketStorage } from './redis-token-bucket.storage';

// Real Redis (the run's key prefix). No test waits for a refill: the refill rate shows in the wait.
describe('RedisTokenBucketStorage', () => {
  const config = loadConfig(process.env).config;
  const redis = new Redis(config.REDIS_URL, { keyPrefix: `${config.REDIS_KEY_PREFIX}:` });
  const storage = new RedisTokenBucketStorage(redis);
  afterAll(() => redis.quit());

  const burst = (key: string, n: number, ttl: number, limit: number) =>
    Promise.all(Array.from({ length: n }, () => storage.increment(key, ttl, limit)));

  it('lets exactly `limit` through at once, then refuses until the next token (ttl/limit), not the whole ttl', async () => {
    const key = `test:${randomUUID()}`;
    const first = await burst(key, 5, 100_000, 5);
    expect(first.map((r) => r.isBlocked)).toEqual([false, false, false, false, false]);
    const refused = await storage.increment(key, 100_000, 5);
    expect(refused.isBlocked).toBe(true);
    // a fixed window would say 100 s; a bucket refilling 5 per 100 s has its next token in 20 s
    expect(refused.timeToBlockExpire).toBeGreaterThanOrEqual(19);
    expect(refused.timeToBlockExpire).toBeLessThanOrEqual(20);
    expect(refused.totalHits).toBe(5);
  });

  it('reports the tokens used so far as totalHits', async () => {
    const key = `test:${randomUUID()}`;
    await storage.increment(key, 100_000, 10);
    const second = await storage.increment(key, 100_000, 10);
    expect(second).toMatchObject({ isBlocked: false, totalHits: 2, timeToBlockExpire: 0 });
  });

  describe('Redis not answering', () => {
    const down = new Redis(config.REDIS_URL, { lazyConnect: true, enableOfflineQueue: false });
    const storageDown = new RedisTokenBucketStorage(down, failClosedRateLimits());
    // the refusals and skipped checks are logged on purpose
    beforeAll(() => Logger.overrideLogger(false));
    afterAll(() => down.disconnect());

    it.each(['webhook-create', 'refresh', 'refresh-token', 'portal-exchange'])(
      'lets the request of %s through',
      async (throttler) => {
        const record = await storageDown.increment(`test:${randomUUID()}`, 1000, 1, 1000, throttler);
        expect(record.isBlocked).toBe(false);
      },
    );

    it('refuses a login with 503: guessing must never go uncounted', async () => {
      const refused = await storageDown
        .increment(`test:${randomUUID()}`, 1000, 1, 1000, 'login')
        .catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(AppError);
      expect(refused).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    });
  });
});
