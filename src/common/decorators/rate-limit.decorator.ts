import { applyDecorators, SetMetadata } from '@nestjs/common';
import { Throttle } from '@nestjs/throttler';
import { RATE_LIMIT, RATE_LIMIT_POLICIES, RateLimitName } from '../guards/rate-limit.policies';

/**
 * Limits the route with the named token bucket, per caller and community, enforced by the global
 * RateLimitGuard, which runs after the auth/tenant/plan/permission guards: refused callers spend
 * no tokens.
 * The throttler's "limit per ttl" is the bucket's burst and the time to refill it whole.
 */
export const RateLimit = (name: RateLimitName) => {
  const { burst, refillEveryMs } = RATE_LIMIT_POLICIES[name];
  return applyDecorators(
    SetMetadata(RATE_LIMIT, name),
    Throttle({ default: { limit: burst, ttl: burst * refillEveryMs } }),
  );
};
