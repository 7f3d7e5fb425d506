import { applyDecorators, SetMetadata, UseGuards } from '@nestjs/common';
import { Throttle } from '@nestjs/throttler';
import { RATE_LIMIT, RATE_LIMIT_POLICIES, RateLimitName } from '../guards/rate-limit.policies';
import { RateLimitGuard } from '../guards/rate-limit.guard';

/**
 * Limits the route with the named token bucket, per caller and community. A route-level guard, so
 * it runs after the global auth/tenant/plan/permission guards: refused callers spend no tokens.
 * The throttler's "limit per ttl" is the bucket's burst and the time to refill it whole.
 */
export const RateLimit = (name: RateLimitName) => {
  const { burst, refillEveryMs } = RATE_LIMIT_POLICIES[name];
  return applyDecorators(
    SetMetadata(RATE_LIMIT, name),
    Throttle({ default: { limit: burst, ttl: burst * refillEveryMs } }),
    UseGuards(RateLimitGuard),
  );
};
