import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { AppConfig } from '../../config/app-config';
import { currentRequestScope } from '../../logging/request-id';
import { REDIS } from '../../redis/redis.module';
import type { RedisClient } from '../../redis/redis-client';
import type { AppRequest } from '../http/request-context';

const READS = new Set(['GET', 'HEAD']);

/**
 * Read-your-writes with DATABASE_READ_URL (docs/architecture.md#read-replicas): a caller (the user,
 * whichever credential they use) who wrote within AppConfig.readYourWritesWindowMs reads from the
 * primary. A write marks its caller in Redis (so every API instance knows) before its handler runs
 * and again once it is answered (a write slower than the window stays covered); a read of a caller
 * so marked sets its scope's `readsFromPrimary`, which ReadReplica follows. Without Redis the read
 * goes to the primary. Off, and free, without DATABASE_READ_URL. A guard rather than an interceptor:
 * no rxjs chain per request (app.module.ts); the last global one, so the caller is known.
 */
@Injectable()
export class ReadYourWritesGuard implements CanActivate {
  private readonly windowMs: number;

  constructor(
    private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: RedisClient,
  ) {
    this.windowMs = config.readYourWritesWindowMs;
  }

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (!this.config.DATABASE_READ_URL) return true;
    const request = context.switchToHttp().getRequest<AppRequest>();
    const caller = request.actor?.userId;
    if (!caller) return true;
    const key = `read-your-writes:${caller}`;
    if (READS.has(request.method)) return this.readsFromPrimary(key);
    const mark = () => this.redis.set(key, '1', 'PX', this.windowMs).catch(() => undefined);
    context
      .switchToHttp()
      .getResponse<FastifyReply>()
      .raw.once('finish', () => void mark());
    return mark().then(() => true);
  }

  private async readsFromPrimary(key: string): Promise<boolean> {
    const wrote = await this.redis.exists(key).catch(() => 1);
    const scope = currentRequestScope();
    if (wrote && scope) scope.readsFromPrimary = true;
    return true;
  }
}
