import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { RATE_LIMIT, RateLimitName, rateLimitRefusal } from '../guards/rate-limit.policies';
import { ErrorBodyDto, errorResponse } from '../http/api-docs';

/**
 * Puts the route under the named limit of rate-limit.policies.ts (its throttler counts only the routes
 * that name it) and documents the route's 429. The global RateLimitGuard counts it, at the place among
 * the guards that the limit's kind says (rateLimitPhase).
 */
export const RateLimit = (name: RateLimitName) =>
  applyDecorators(
    SetMetadata(RATE_LIMIT, name),
    ApiResponse({
      status: 429,
      type: ErrorBodyDto,
      description: rateLimitRefusal(name) ?? errorResponse(429).description,
    }),
  );
