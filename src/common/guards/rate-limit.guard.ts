import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerLimitDetail } from '@nestjs/throttler';
import { Errors } from '../errors/app-error';
import type { AppRequest } from '../http/request-context';
import { RATE_LIMIT, RateLimitName } from './rate-limit.policies';

/**
 * @nestjs/throttler's guard, keyed the way docs/product-decisions.md#8-limits-and-unmatched-paths counts: one
 * bucket per (operation, community, caller), where the operation is the @RateLimit name (so routes that share
 * a name share a bucket). A refusal is the contract's RATE_LIMITED body with retryAfter; the exception filter
 * sets the Retry-After header from it.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  /** A global guard: a route without @RateLimit has no bucket (the module's throttler is a placeholder). */
  protected override shouldSkip(context: ExecutionContext): Promise<boolean> {
    return Promise.resolve(!this.reflector.get<RateLimitName>(RATE_LIMIT, context.getHandler()));
  }

  protected override getTracker(request: AppRequest): Promise<string> {
    const caller = request.actor?.userId ?? request.ip;
    const community = request.tenant?.communityId ?? '-';
    return Promise.resolve(`${community}:${caller}`);
  }

  protected override generateKey(context: ExecutionContext, tracker: string): string {
    const name = this.reflector.get<RateLimitName>(RATE_LIMIT, context.getHandler());
    return `ratelimit:${name}:${tracker}`;
  }

  protected override throwThrottlingException(
    _context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    throw Errors.rateLimited(detail.timeToBlockExpire);
  }
}
