import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../../config/app-config';
import { longestSendMs } from '../core/delivery-settings';
import { EndpointRateLimits, RATE_WINDOW_MS, UNENDED_START_MARGIN_MS } from './endpoint-rate-limits';

/**
 * Real Redis. A send counts in its endpoint's budget from its start until a window after its
 * request ended (README.md in this directory, "Rate limit per endpoint"): so a receiver never sees
 * more than `rateLimit` arrivals in a second of its own clock, however late a request gets there.
 */
describe('EndpointRateLimits', () => {
  const config = loadConfig({ ...process.env, WEBHOOK_TIMEOUT: '2s' }).config;
  const limits = new EndpointRateLimits(config);
  const redis = new Redis(config.REDIS_URL);
  afterAll(async () => {
    await limits.onApplicationShutdown();
    await redis.quit();
  });

  const logKey = (endpointId: string) => `${config.REDIS_KEY_PREFIX}:endpoint-rate:{${endpointId}}:log`;
  const redisNow = async () => {
    const [seconds, micros] = await redis.time();
    return Number(seconds) * 1000 + Number(micros) / 1000;
  };

  it('counts a started send until its bound (WEBHOOK_TIMEOUT and a margin) while its end is not marked', async () => {
    const endpointId = randomUUID();
    const before = await redisNow();
    const { startId } = await limits.take(endpointId, 1, false);
    expect(startId).toBeDefined();
    const bound = Number(await redis.zscore(logKey(endpointId), startId!));
    expect(bound).toBeGreaterThanOrEqual(
      Math.floor(before) + longestSendMs(config) + UNENDED_START_MARGIN_MS,
    );

    // a send in flight fills the window: the next one waits, about a window from now (its end is
    // expected soon), not until the bound
    const { waitMs } = await limits.take(endpointId, 1, false);
    expect(waitMs).toBeGreaterThan(0);
    expect(waitMs).toBeLessThanOrEqual(RATE_WINDOW_MS);
  });

  it('counts an ended send for a whole window from its end, not from its start', async () => {
    const endpointId = randomUUID();
    const { startId } = await limits.take(endpointId, 1, false);
    // the request took a while: the window runs from its end
    const beforeEnd = await redisNow();
    await limits.ended(endpointId, startId!);
    const end = Number(await redis.zscore(logKey(endpointId), startId!));
    expect(end).toBeGreaterThanOrEqual(beforeEnd);

    const { waitMs } = await limits.take(endpointId, 1, true);
    const asked = await redisNow();
    expect(waitMs).toBeGreaterThanOrEqual(Math.floor(end + RATE_WINDOW_MS - asked));
    expect(waitMs).toBeLessThanOrEqual(RATE_WINDOW_MS);
    // nothing was logged for the send told to wait
    expect(await redis.zcard(logKey(endpointId))).toBe(1);
  });

  it('lets `rate` sends start at once, and refuses the next until one of them ended a window ago', async () => {
    const endpointId = randomUUID();
    const starts = await Promise.all(Array.from({ length: 3 }, () => limits.take(endpointId, 3, false)));
    expect(starts.every((take) => take.startId !== undefined)).toBe(true);
    expect((await limits.take(endpointId, 3, true)).waitMs).toBeGreaterThan(0);
    // backdate one end by a window (as if it ended a second ago): there is room again
    await limits.ended(endpointId, starts[0].startId!);
    await redis.zadd(
      logKey(endpointId),
      'XX',
      Math.floor(await redisNow()) - RATE_WINDOW_MS - 1,
      starts[0].startId!,
    );
    expect((await limits.take(endpointId, 3, true)).startId).toBeDefined();
  });
});
