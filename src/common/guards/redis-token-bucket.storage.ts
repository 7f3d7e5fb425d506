import { Logger } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type Redis from 'ioredis';

/**
 * Token bucket in one atomic step, on Redis's clock so every API instance agrees: refill by the
 * time elapsed, take a token if there is one, otherwise say how long until the next one.
 * Returns {allowed (0|1), waitMs, tokens left (rounded down), ms until the bucket is full}.
 */
const TOKEN_BUCKET_LUA = `
local burst = tonumber(ARGV[1])
local every = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1])
local ts = tonumber(state[2])
if tokens == nil or ts == nil then
  tokens = burst
  ts = now
end
tokens = math.min(burst, tokens + math.max(0, now - ts) / every)
local allowed = 0
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
else
  wait = math.ceil((1 - tokens) * every)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst * every) + 1000)
return {allowed, wait, math.floor(tokens), math.ceil((burst - tokens) * every)}
`;

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

const COMMAND = 'cpTokenBucket';
type BucketRedis = Redis & {
  [COMMAND](key: string, burst: number, refillEveryMs: number): Promise<[number, number, number, number]>;
};

/**
 * @nestjs/throttler storage that keeps spec §8's token buckets in the project's Redis, shared by
 * every API instance. The throttler's "`limit` per `ttl`" is read as a bucket of `limit` tokens
 * refilled at `limit` per `ttl` (one every ttl/limit ms): same burst, same sustained rate, no
 * window edge where twice the limit passes. `blockDuration` is not used: a refused request waits
 * for the next token, as a bucket does.
 *
 * If Redis cannot answer, the request is let through (logged): the limits protect against abuse
 * and must not take webhook management down with Redis.
 */
export class RedisTokenBucketStorage implements ThrottlerStorage {
  private readonly logger = new Logger(RedisTokenBucketStorage.name);
  private readonly redis: BucketRedis;

  constructor(redis: Redis) {
    if (!(COMMAND in redis)) redis.defineCommand(COMMAND, { numberOfKeys: 1, lua: TOKEN_BUCKET_LUA });
    this.redis = redis as BucketRedis;
  }

  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    let allowed: number, waitMs: number, tokensLeft: number, msUntilFull: number;
    try {
      [allowed, waitMs, tokensLeft, msUntilFull] = await this.redis[COMMAND](key, limit, ttl / limit);
    } catch (err) {
      this.logger.warn({ err, key }, 'rate limit check skipped: Redis did not answer');
      return { totalHits: 0, timeToExpire: 0, isBlocked: false, timeToBlockExpire: 0 };
    }
    return {
      // what the throttler reports as used: the tokens the bucket is missing
      totalHits: limit - tokensLeft,
      timeToExpire: Math.ceil(msUntilFull / 1000),
      isBlocked: allowed !== 1,
      timeToBlockExpire: allowed === 1 ? 0 : Math.max(1, Math.ceil(waitMs / 1000)),
    };
  }
}
