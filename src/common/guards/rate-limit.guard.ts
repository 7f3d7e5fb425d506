import { CanActivate, ExecutionContext, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerLimitDetail } from '@nestjs/throttler';
import { Errors } from '../errors/app-error';
import { rateLimitOf } from './rate-limit.policies';

/**
 * @nestjs/throttler's guard over the named throttlers of rate-limit.policies.ts. Each instance is given
 * the throttlers of one phase (rate-limit.module.ts, rateLimitGuard) and sees only the routes that
 * name one of them (PhaseRateLimitGuard). A refusal is the RATE_LIMITED error body with retryAfter
 * (docs/product-decisions.md#1-responses-and-errors); the exception filter sets the Retry-After header
 * from it.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  protected override logger = new Logger(RateLimitGuard.name);

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

/**
 * The global guard at one of its two places in AppModule's guard order. Most routes name no limit,
 * and a route's limit belongs to one phase: only a route that names a limit of this phase reaches the
 * throttler, and every other request passes at once, synchronously. The throttler's guard is async
 * throughout, so passing it cost each request several promises even when every throttler skipped it
 * (docs/architecture.md#a-warm-request-awaits-nothing).
 */
export class PhaseRateLimitGuard implements CanActivate, OnModuleInit {
  private readonly names: ReadonlySet<string>;

  constructor(
    private readonly throttler: RateLimitGuard,
    names: readonly string[],
  ) {
    this.names = new Set(names);
  }

  onModuleInit(): Promise<void> {
    return this.throttler.onModuleInit();
  }

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const name = rateLimitOf(context);
    return name !== undefined && this.names.has(name) ? this.throttler.canActivate(context) : true;
  }
}
