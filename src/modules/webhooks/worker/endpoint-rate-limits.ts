import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AppConfig } from '../../../config/app-config';
import { closeRedisClient, createRedisClient, type RedisClient } from '../../../redis/redis-client';

/**
 * The window an endpoint's `rateLimit` counts in: one second and a guard. Starts are counted on
 * Redis's clock, and a receiver sees them shifted by queueing, a busy event loop and the network;
 * the guard keeps its own count of any one second within the limit.
 */
export const RATE_WINDOW_MS = 1_100;

/**
 * Ask to start one send now. KEYS[1], the log: the starts of the last window (a sorted set scored by
 * start time); KEYS[2]: held until (a receiver's 429 with Retry-After); KEYS[3]: the next start free
 * to be given to a send held back. A send starts now when the log has room, nothing holds the
 * endpoint, and no send held back before it is still waiting (ARGV[4] = '1': it is one of those,
 * back at the time it was given); then its start is logged. Otherwise it gets a time to come back:
 * a newcomer the next free one, each one 1/rate of the window after the last, so a burst held back
 * comes back spread out rather than all at once; a send that came back and still found the log full
 * (the one before it started late) the moment the log has room, keeping its turn. Returns the wait
 * in ms; 0: start now. Only real starts are logged, so no window ever holds more than `rate`.
 */
const TAKE_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rate = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local cameBack = ARGV[4] == '1'
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local held = tonumber(redis.call('GET', KEYS[2]) or '0')
local nextFree = tonumber(redis.call('GET', KEYS[3]) or '0')
if now >= held and count < rate and (cameBack or nextFree <= now) then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  return 0
end
local at = math.max(now, held)
if count >= rate then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  at = math.max(at, tonumber(oldest[2]) + window)
end
if not cameBack then
  at = math.max(at, nextFree)
  local following = at + window / rate
  redis.call('SET', KEYS[3], tostring(following), 'PX', math.ceil(following - now + window))
end
return math.max(1, math.ceil(at - now))
`;

/** Hold the endpoint's new starts until now + ARGV[1] ms (never shortening a longer hold). */
const HOLD_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local untilMs = now + tonumber(ARGV[1])
local held = tonumber(redis.call('GET', KEYS[1]) or '0')
if untilMs > held then redis.call('SET', KEYS[1], untilMs, 'PX', tonumber(ARGV[1])) end
return 0
`;

type RateRedis = RedisClient & {
  cpRateTake(log: string, hold: string, next: string, ...args: (string | number)[]): Promise<number>;
  cpRateHold(hold: string, ms: number): Promise<number>;
};

/**
 * Endpoints' rate limits (docs/api.md#webhooks): one budget per endpoint in Redis, shared by every
 * worker. A send asks to start after its claim (which reads the endpoint's `rateLimit`); a send told
 * to wait gives its claim and its endpoint slot back and comes back at the time it was given, so it
 * holds no worker slot meanwhile and is not a failure.
 */
@Injectable()
export class EndpointRateLimits implements OnApplicationShutdown {
  private readonly redis: RateRedis;
  private readonly keyPrefix: string;

  constructor(config: AppConfig) {
    this.keyPrefix = `${config.REDIS_KEY_PREFIX}:endpoint-rate`;
    // waits out a Redis restart like the endpoint slots; one round trip per turn of the event loop
    const redis = createRedisClient(config, 'endpoint-slots');
    redis.defineCommand('cpRateTake', { numberOfKeys: 3, lua: TAKE_LUA });
    redis.defineCommand('cpRateHold', { numberOfKeys: 1, lua: HOLD_LUA });
    this.redis = redis as RateRedis;
  }

  /**
   * The wait in ms before this send may start (0: now, and its start is counted) under `rate` sends
   * per second. `cameBack`: the send was held back and comes back at the time it was given.
   */
  async take(endpointId: string, rate: number, cameBack: boolean): Promise<number> {
    const [log, hold, next] = this.keys(endpointId);
    return this.redis.cpRateTake(log, hold, next, rate, RATE_WINDOW_MS, randomUUID(), cameBack ? '1' : '0');
  }

  /** A receiver's 429 asked for `ms` of quiet: the endpoint's sends not yet started wait past it. */
  async hold(endpointId: string, ms: number): Promise<void> {
    if (ms > 0) await this.redis.cpRateHold(this.keys(endpointId)[1], Math.ceil(ms));
  }

  /** The keys share the endpoint's hash tag: one Redis Cluster slot per script. */
  private keys(endpointId: string): [string, string, string] {
    const base = `${this.keyPrefix}:{${endpointId}}`;
    return [`${base}:log`, `${base}:hold`, `${base}:next`];
  }

  async onApplicationShutdown(): Promise<void> {
    await closeRedisClient(this.redis);
  }
}
