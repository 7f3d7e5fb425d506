import type { ExecutionContext } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { RateLimit } from '../decorators/rate-limit.decorator';
import { PhaseRateLimitGuard, type RateLimitGuard } from './rate-limit.guard';

class Routes {
  unlimited() {}
  @RateLimit('login')
  login() {}
  @RateLimit('webhook-create')
  createWebhook() {}
}

function contextOf(handler: keyof Routes): ExecutionContext {
  return new ExecutionContextHost([{}, {}], Routes, Routes.prototype[handler]);
}

describe('PhaseRateLimitGuard', () => {
  // the throttler itself counts in Redis (test/auth, test/webhooks); here only who reaches it
  const throttled: string[] = [];
  const throttler = {
    canActivate: (context: ExecutionContext) => {
      throttled.push(context.getHandler().name);
      return Promise.resolve(true);
    },
  } as unknown as RateLimitGuard;
  const beforeAccess = new PhaseRateLimitGuard(throttler, ['login', 'refresh']);

  beforeEach(() => (throttled.length = 0));

  it('lets a route that names no limit through at once, without a promise', () => {
    expect(beforeAccess.canActivate(contextOf('unlimited'))).toBe(true);
    expect(throttled).toEqual([]);
  });

  it("lets a route whose limit is another phase's through at once", () => {
    expect(beforeAccess.canActivate(contextOf('createWebhook'))).toBe(true);
    expect(throttled).toEqual([]);
  });

  it("hands a route that names one of the phase's limits to the throttler", async () => {
    await expect(beforeAccess.canActivate(contextOf('login'))).resolves.toBe(true);
    expect(throttled).toEqual(['login']);
  });
});
