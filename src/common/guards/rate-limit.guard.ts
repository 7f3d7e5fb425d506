import { CanActivate, ExecutionContext, Inject, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type Redis from 'ioredis';
import { Errors } from '../errors/app-error';
import type { AppRequest } from '../http/request-context';
import { REDIS } from '../../redis/redis.module';
import { retryAfterSeconds, takeTokens, TokenBucketAnswer } from '../rate-limit/token-bucket';
import { RATE_LIMIT, RATE_LIMIT_POLICIES, RateLimitName, RateLimitPolicy } from './rate-limit.policies';

/**
 * @RateLimit(name): one bucket per (operation, community, caller) in Redis, shared by every API
 * instance. If Redis cannot answer, the request is let through (logged): the limits protect
 * against abuse and must not take webhook management down with Redis.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly logger = new Logger(RateLimitGuard.name);

  constructor(
    private readonly reflector: Reflector,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const name = this.reflector.get<RateLimitName | undefined>(RATE_LIMIT, context.getHandler());
    if (!name) return true;
    const request = context.switchToHttp().getRequest<AppRequest>();
    const caller = request.actor?.userId ?? request.ip;
    const community = request.tenant?.communityId ?? '-';
    const policy: RateLimitPolicy = RATE_LIMIT_POLICIES[name];
    let answer: TokenBucketAnswer;
    try {
      answer = await takeTokens(this.redis, `ratelimit:${name}:${community}:${caller}`, policy);
    } catch (err) {
      this.logger.warn({ err, policy: name }, 'rate limit check skipped: Redis did not answer');
      return true;
    }
    if (answer.allowed) return true;
    throw Errors.rateLimited(retryAfterSeconds(answer.waitMs));
  }
}
