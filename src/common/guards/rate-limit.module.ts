import { FactoryProvider, Module } from '@nestjs/common';
import { APP_GUARD, Reflector } from '@nestjs/core';
import {
  getOptionsToken,
  getStorageToken,
  ThrottlerModule,
  ThrottlerModuleOptions,
  ThrottlerOptions,
  ThrottlerStorage,
} from '@nestjs/throttler';
import { AppConfig } from '../../config/app-config';
import type { RedisClient } from '../../redis/redis-client';
import { REDIS } from '../../redis/redis.tokens';
import { PhaseRateLimitGuard, RateLimitGuard } from './rate-limit.guard';
import {
  failClosedRateLimits,
  RateLimitPhase,
  rateLimitPhase,
  rateLimitThrottlers,
} from './rate-limit.policies';
import { RedisTokenBucketStorage } from './redis-token-bucket.storage';

/** The options object form (the throttlers beside the storage), the one this module gives. */
type ThrottlerSettings = Exclude<ThrottlerModuleOptions, ThrottlerOptions[]>;

/**
 * @nestjs/throttler over the project's Redis, with one named throttler per route limit
 * (rate-limit.policies.ts), imported once, by AppModule. Headers are left to the exception filter
 * (Retry-After on a refusal), so a response carries no X-RateLimit-* headers.
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [REDIS, AppConfig],
      useFactory: (redis: RedisClient, config: AppConfig): ThrottlerSettings => ({
        throttlers: rateLimitThrottlers(config),
        storage: new RedisTokenBucketStorage(redis, failClosedRateLimits()),
        setHeaders: false,
      }),
    }),
  ],
  exports: [ThrottlerModule],
})
export class RateLimitModule {}

/**
 * The global RateLimitGuard at one of its two places in AppModule's guard order, counting the
 * throttlers of that phase only. Two places because the limits need two: the per-address ones must
 * count requests the access guards would refuse, the per-caller ones must not charge refused callers
 * (rateLimitPhase). One class, one storage, one set of throttlers.
 */
export function rateLimitGuard(phase: RateLimitPhase): FactoryProvider {
  return {
    provide: APP_GUARD,
    inject: [getOptionsToken(), getStorageToken(), Reflector],
    useFactory: (options: ThrottlerSettings, storage: ThrottlerStorage, reflector: Reflector) => {
      const throttlers = options.throttlers.filter(
        (throttler) => throttler.name && rateLimitPhase(throttler.name) === phase,
      );
      const names = throttlers.map((throttler) => throttler.name!);
      return new PhaseRateLimitGuard(
        new RateLimitGuard({ ...options, throttlers }, storage, reflector),
        names,
      );
    },
  };
}
