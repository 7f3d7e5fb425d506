import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { ThrottlerOptions } from '@nestjs/throttler';
import type { AppConfig } from '../../config/app-config';
import type { AppRequest } from '../http/request-context';
import { addressBucket } from '../rate-limit/address-bucket';
import type { TokenBucketPolicy } from '../rate-limit/token-bucket';

/** Metadata key of @RateLimit(name). */
export const RATE_LIMIT = 'rate-limit:policy';

/** Whom one bucket of a limit is kept for. */
type Counted =
  /** the caller (user, else client address) in the request's community; the webhook management operations */
  | { per: 'caller-in-community'; bucket: TokenBucketPolicy }
  /**
   * the client address (IPv6 per /64), AUTH_RATE_LIMIT_PER_ADDRESS per AUTH_RATE_LIMIT_WINDOW; the anonymous
   * routes that take, renew or exchange credentials. `redisDown`: the 503 message when the route must not go
   * uncounted; without it the request goes on (logged).
   */
  | { per: 'client-address'; redisDown?: string };

/**
 * Every named route limit (docs/product-decisions.md#8-limits-and-unmatched-paths); each is a throttler of
 * its own, so routes never share a bucket. Buckets are in Redis (RedisTokenBucketStorage), so every API
 * instance shares them.
 */
const RATE_LIMITS = {
  'webhook-create': { per: 'caller-in-community', bucket: { burst: 10, refillEveryMs: 10_000 } },
  'webhook-rotate-secret': { per: 'caller-in-community', bucket: { burst: 5, refillEveryMs: 20_000 } },
  'webhook-test': { per: 'caller-in-community', bucket: { burst: 5, refillEveryMs: 20_000 } },
  // resend and recover: "rate limited like the test route" (docs/product-decisions.md#5-webhooks), each with
  // a bucket of its own
  'webhook-resend': { per: 'caller-in-community', bucket: { burst: 5, refillEveryMs: 20_000 } },
  'webhook-recover': { per: 'caller-in-community', bucket: { burst: 5, refillEveryMs: 20_000 } },
  // Redis away must not make password guessing unlimited; the other tokens are 256-bit random or signed
  // (nothing to guess), and sessions keep working.
  login: { per: 'client-address', redisDown: 'Login is unavailable for a moment; try again shortly' },
  refresh: { per: 'client-address' },
  'refresh-token': { per: 'client-address' },
  // POST /api/webhooks/portal-sessions: a portal link's token for a session
  'portal-exchange': { per: 'client-address' },
} as const satisfies Record<string, Counted>;

export type RateLimitName = keyof typeof RATE_LIMITS;

/**
 * Where among the global guards (app.module.ts) a limit is counted. Per client address: before the
 * access guards, so the count sees every request of the route, including the refresh calls whose
 * Bearer token the auth guard would refuse. Per caller: after the auth, tenant, plan and permission
 * guards, so refused callers spend nothing (and the caller is known).
 */
export type RateLimitPhase = 'before-access' | 'after-access';

export function rateLimitPhase(name: string): RateLimitPhase {
  return RATE_LIMITS[name as RateLimitName].per === 'client-address' ? 'before-access' : 'after-access';
}

/** What the route's 429 says in the OpenAPI document. */
export function rateLimitRefusal(name: RateLimitName): string | undefined {
  return RATE_LIMITS[name].per === 'client-address'
    ? 'RATE_LIMITED: too many attempts from this address (for login: also for this account from this address)'
    : undefined;
}

const reflector = new Reflector();

const requestOf = (context: ExecutionContext) => context.switchToHttp().getRequest<AppRequest>();

/** The limit the route names with @RateLimit, if any. */
export function rateLimitOf(context: ExecutionContext): RateLimitName | undefined {
  return reflector.get<RateLimitName | undefined>(RATE_LIMIT, context.getHandler());
}

/**
 * The named throttlers of @nestjs/throttler, one per limit, each counting only the routes that name it.
 * The throttler's "limit per ttl" is the bucket's burst and the time to refill it whole (the storage
 * reads it as one token every ttl/limit ms). The keys are the ones the buckets have always had, so a
 * rolling deploy keeps them.
 */
export function rateLimitThrottlers(config: AppConfig): ThrottlerOptions[] {
  return Object.entries(RATE_LIMITS).map(([name, counted]: [string, Counted]) => {
    const skipIf = (context: ExecutionContext) => rateLimitOf(context) !== name;
    if (counted.per === 'client-address')
      return {
        name,
        limit: config.AUTH_RATE_LIMIT_PER_ADDRESS,
        ttl: config.authRateLimitWindowMs,
        skipIf,
        getTracker: (_request, context) => addressBucket(requestOf(context).ip),
        generateKey: (_context, tracker) => `authlimit:address:${name}:${tracker}`,
      };
    const { burst, refillEveryMs } = counted.bucket;
    return {
      name,
      limit: burst,
      ttl: burst * refillEveryMs,
      skipIf,
      getTracker: (_request, context) => {
        const request = requestOf(context);
        return `${request.tenant?.communityId ?? '-'}:${request.actor?.userId ?? request.ip}`;
      },
      generateKey: (_context, tracker) => `ratelimit:${name}:${tracker}`,
    };
  });
}

/** The limits whose requests are refused (503, with this message) while Redis does not answer. */
export function failClosedRateLimits(): ReadonlyMap<string, string> {
  return new Map(
    Object.entries(RATE_LIMITS).flatMap(([name, counted]: [string, Counted]) =>
      counted.per === 'client-address' && counted.redisDown ? [[name, counted.redisDown]] : [],
    ),
  );
}
