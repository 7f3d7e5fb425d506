/** Metadata key of @RateLimit(name). */
export const RATE_LIMIT = 'rate-limit:policy';

/** A token bucket: `burst` requests at once, then one more every `refillEveryMs`. */
export interface RateLimitPolicy {
  burst: number;
  refillEveryMs: number;
}

/**
 * Every rate-limited operation (docs/product-decisions.md#8-limits-and-unmatched-paths), per caller and
 * community.
 */
export const RATE_LIMIT_POLICIES = {
  'webhook-create': { burst: 10, refillEveryMs: 10_000 },
  'webhook-rotate-secret': { burst: 5, refillEveryMs: 20_000 },
  'webhook-test': { burst: 5, refillEveryMs: 20_000 },
  // resend and recover: "rate limited like the test route" (docs/product-decisions.md#5-webhooks), each with
  // a bucket of its own
  'webhook-resend': { burst: 5, refillEveryMs: 20_000 },
  'webhook-recover': { burst: 5, refillEveryMs: 20_000 },
} as const satisfies Record<string, RateLimitPolicy>;

export type RateLimitName = keyof typeof RATE_LIMIT_POLICIES;
