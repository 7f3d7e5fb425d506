import { applyDecorators, SetMetadata, UseGuards } from '@nestjs/common';
import { RATE_LIMIT, RateLimitName } from '../guards/rate-limit.policies';
import { RateLimitGuard } from '../guards/rate-limit.guard';

/**
 * Limits the route with the named token bucket, per caller and community. A route-level guard, so
 * it runs after the global auth/tenant/plan/permission guards: refused callers spend no tokens.
 */
export const RateLimit = (name: RateLimitName) =>
  applyDecorators(SetMetadata(RATE_LIMIT, name), UseGuards(RateLimitGuard));
