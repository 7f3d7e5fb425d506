import { Logger } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type { RedisClient } from '../../redis/redis-client';
import { Errors } from '../errors/app-error';
import { retryAfterSeconds, takeTokens, TokenBucketAnswer } from '../rate-limit/token-bucket';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * @nestjs/throttler storage that keeps the token buckets of
 * docs/product-decisions.md#8-limits-and-unmatched-paths in the project's Redis, shared by every API
 * instance. The throttler's "`limit` per `ttl`" is read as a bucket of `limit` tokens refilled at `limit` per
 * `ttl` (one every ttl/limit ms): same burst, same sustained rate, no window edge where twice the limit
 * passes. `blockDuration` is not used: a refused request waits for the next token, as a bucket does.
 *
 * If Redis cannot answer, the request is let through (logged): the limits protect against abuse and
 * must not take the routes down with Redis. Except for the throttlers named in `failClosed` (login),
 * whose requests are refused with 503 and the message given there: those must never go uncounted.
 */
export class RedisTokenBucketStorage implements ThrottlerStorage {
  private readonly logger = new Logger(RedisTokenBucketStorage.name);

  // the one token bucket of the project (src/common/rate-limit/token-bucket.ts), also used by the login limiter
  constructor(
    private readonly redis: RedisClient,
    private readonly failClosed: ReadonlyMap<string, string> = new Map(),
  ) {}

  async increment(
    key: string,
    ttl: number,
    limit: number,
    _blockDuration?: number,
    throttlerName?: string,
  ): Promise<ThrottlerStorageRecord> {
    let answer: TokenBucketAnswer;
    try {
      answer = await takeTokens(this.redis, key, { burst: limit, refillEveryMs: ttl / limit });
    } catch (err) {
      const refusal = throttlerName === undefined ? undefined : this.failClosed.get(throttlerName);
      if (refusal !== undefined) {
        this.logger.error(
          { err, limit: throttlerName },
          'request refused: Redis did not answer, so it cannot be counted',
        );
        throw Errors.serviceUnavailable(refusal);
      }
      this.logger.warn({ err, key }, 'rate limit check skipped: Redis did not answer');
      return { totalHits: 0, timeToExpire: 0, isBlocked: false, timeToBlockExpire: 0 };
    }
    return {
      // what the throttler reports as used: the tokens the bucket is missing
      totalHits: limit - answer.tokensLeft,
      timeToExpire: Math.ceil(answer.msUntilFull / 1000),
      isBlocked: !answer.allowed,
      timeToBlockExpire: answer.allowed ? 0 : retryAfterSeconds(answer.waitMs),
    };
  }
}
