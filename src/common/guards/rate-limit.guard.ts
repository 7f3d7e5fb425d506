import { ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerLimitDetail } from '@nestjs/throttler';
import { Errors } from '../errors/app-error';
import { rateLimitOf } from './rate-limit.policies';

/**
 * @nestjs/throttler's guard over the named throttlers of rate-limit.policies.ts. Each instance is given
 * the throttlers of one phase (rate-limit.module.ts, rateLimitGuard). A refusal is the contract's
 * RATE_LIMITED body with retryAfter; the exception filter sets the Retry-After header from it.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  protected override logger = new Logger(RateLimitGuard.name);

  /**
   * Most routes name no limit, and this instance counts only the limits of its phase: skipping here
   * spares those routes a metadata lookup per throttler (each throttler's skipIf would skip them too).
   */
  protected override shouldSkip(context: ExecutionContext): Promise<boolean> {
    const name = rateLimitOf(context);
    return Promise.resolve(!name || !this.throttlers.some((throttler) => throttler.name === name));
  }

  protected override throwThrottlingException(
    context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    this.logger.warn(
      { limit: rateLimitOf(context), tracker: detail.tracker },
      'request refused: rate limit reached',
    );
    throw Errors.rateLimited(detail.timeToBlockExpire);
  }
}
