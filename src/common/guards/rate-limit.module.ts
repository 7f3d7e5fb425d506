import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import type { RedisClient } from '../../redis/redis-client';
import { REDIS } from '../../redis/redis.tokens';
import { RedisTokenBucketStorage } from './redis-token-bucket.storage';

/**
 * @nestjs/throttler over the project's Redis, for the global RateLimitGuard (imported once, by
 * AppModule). Only routes with @RateLimit are guarded; each sets its own limit and ttl, so the one throttler
 * here carries placeholders that no route reads. Headers are left to the exception filter
 * (Retry-After on a refusal, as before), so a response carries no X-RateLimit-* headers.
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [REDIS],
      useFactory: (redis: RedisClient) => ({
        throttlers: [{ name: 'default', limit: 1, ttl: 1 }],
        storage: new RedisTokenBucketStorage(redis),
        setHeaders: false,
      }),
    }),
  ],
  exports: [ThrottlerModule],
})
export class RateLimitModule {}
