import { CanActivate, ExecutionContext, Inject, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type Redis from 'ioredis';
import { Errors } from '../errors/app-error';
import type { AppRequest } from '../http/request-context';
import { REDIS } from '../../redis/redis.module';
import { RATE_LIMIT, RATE_LIMIT_POLICIES, RateLimitName, RateLimitPolicy } from './rate-limit.policies';

/**
 * Token bucket in one atomic step, on Redis's clock so every API instance agrees: refill by the
 * time elapsed, take a token if there is one, otherwise say how long until the next one.
 * Returns {allowed (0|1), waitMs}.
 */
const TOKEN_BUCKET_LUA = `
local burst = tonumber(ARGV[1])
local every = tonumber(ARGV[2])
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
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
else
  wait = math.ceil((1 - tokens) * every)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst * every) + 1000)
return {allowed, wait}
`;

const COMMAND = 'cpTokenBucket';
type BucketRedis = Redis & {
  [COMMAND](key: string, burst: number, refillEveryMs: number): Promise<[number, number]>;
};

/**
 * @RateLimit(name): one bucket per (operation, community, caller) in Redis, shared by every API
 * instance. If Redis cannot answer, the request is let through (logged): the limits protect
 * against abuse and must not take webhook management down with Redis.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly logger = new Logger(RateLimitGuard.name);
  private readonly redis: BucketRedis;

  constructor(
    private readonly reflector: Reflector,
    @Inject(REDIS) redis: Redis,
  ) {
    if (!(COMMAND in redis)) redis.defineCommand(COMMAND, { numberOfKeys: 1, lua: TOKEN_BUCKET_LUA });
    this.redis = redis as BucketRedis;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const name = this.reflector.get<RateLimitName | undefined>(RATE_LIMIT, context.getHandler());
    if (!name) return true;
    const request = context.switchToHttp().getRequest<AppRequest>();
    const caller = request.actor?.userId ?? request.ip;
    const community = request.tenant?.communityId ?? '-';
    const policy: RateLimitPolicy = RATE_LIMIT_POLICIES[name];
    let allowed: number;
    let waitMs: number;
    try {
      [allowed, waitMs] = await this.redis[COMMAND](
        `ratelimit:${name}:${community}:${caller}`,
        policy.burst,
        policy.refillEveryMs,
      );
    } catch (err) {
      this.logger.warn({ err, policy: name }, 'rate limit check skipped: Redis did not answer');
      return true;
    }
    if (allowed === 1) return true;
    throw Errors.rateLimited(Math.max(1, Math.ceil(waitMs / 1000)));
  }
}
