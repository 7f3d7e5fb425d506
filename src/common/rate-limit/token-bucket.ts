import type { RedisClient } from '../../redis/redis-client';

/**
 * Token bucket in one atomic step, on Redis's clock so every API instance agrees: refill by the
 * time elapsed, then take `cost` tokens if there are that many, otherwise say how long until there
 * are. A negative cost gives tokens back (capped at the burst) and always succeeds: the login
 * limiter reserves a token before checking a password and returns it when the password was right.
 * Returns {allowed (0|1), waitMs, tokens left (rounded down), ms until the bucket is full}.
 */
const TOKEN_BUCKET_LUA = `
local burst = tonumber(ARGV[1])
local every = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1])
local ts = tonumber(state[2])
if tokens == nil or ts == nil then
  tokens = burst
  ts = now
end
tokens = math.min(burst, tokens + math.max(0, now - ts) / every)
local allowed = 0
local wait = 0
if cost <= 0 then
  tokens = math.min(burst, tokens - cost)
  allowed = 1
elseif tokens >= cost then
  tokens = tokens - cost
  allowed = 1
else
  wait = math.ceil((cost - tokens) * every)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst * every) + 1000)
return {allowed, wait, math.floor(tokens), math.ceil((burst - tokens) * every)}
`;

// Not the name the first version (cost always 1) was defined under, so the two can never be mixed up on one connection.
const COMMAND = 'cpTokenBucketWithCost';
type BucketRedis = RedisClient & {
  [COMMAND](
    key: string,
    burst: number,
    refillEveryMs: number,
    cost: number,
  ): Promise<[number, number, number, number]>;
};

/** A token bucket: `burst` requests at once, then one more every `refillEveryMs`. */
export interface TokenBucketPolicy {
  burst: number;
  refillEveryMs: number;
}

export interface TokenBucketAnswer {
  allowed: boolean;
  /** when refused: milliseconds until the tokens asked for are there */
  waitMs: number;
  /** whole tokens left after this call */
  tokensLeft: number;
  /** milliseconds until the bucket is full again */
  msUntilFull: number;
}

/**
 * Takes `cost` tokens (default 1; negative gives them back) from the bucket at `key` on the shared
 * Redis connection. Rejects when Redis does not answer: each caller decides what that means.
 */
export async function takeTokens(
  redis: RedisClient,
  key: string,
  policy: TokenBucketPolicy,
  cost = 1,
): Promise<TokenBucketAnswer> {
  if (!(COMMAND in redis)) redis.defineCommand(COMMAND, { numberOfKeys: 1, lua: TOKEN_BUCKET_LUA });
  const [allowed, waitMs, tokensLeft, msUntilFull] = await (redis as BucketRedis)[COMMAND](
    key,
    policy.burst,
    policy.refillEveryMs,
    cost,
  );
  return { allowed: allowed === 1, waitMs, tokensLeft, msUntilFull };
}

/** Retry-After in whole seconds, at least 1. */
export function retryAfterSeconds(waitMs: number): number {
  return Math.max(1, Math.ceil(waitMs / 1000));
}
