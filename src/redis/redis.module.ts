import { Global, Inject, Injectable, Module, OnModuleDestroy } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '../config/app-config';
import { InvalidationBus } from './invalidation-bus';
import { REDIS } from './redis.tokens';

export { REDIS } from './redis.tokens';

@Injectable()
class RedisLifecycle implements OnModuleDestroy {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}
  async onModuleDestroy(): Promise<void> {
    // quit() on a connection that is not up would wait for a reconnect that may never come.
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => this.redis.disconnect());
    else this.redis.disconnect();
  }
}

/**
 * One shared ioredis connection for the API (rate-limit buckets, health), and the invalidation bus
 * that keeps every instance's in-process caches honest (it opens a subscriber connection of its
 * own). Keys are prefixed with REDIS_KEY_PREFIX so environments and test runs never collide.
 */
@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [AppConfig],
      useFactory: (config: AppConfig) =>
        new Redis(config.REDIS_URL, {
          keyPrefix: `${config.REDIS_KEY_PREFIX}:`,
          maxRetriesPerRequest: 2,
          enableOfflineQueue: true,
          lazyConnect: false,
        }),
    },
    RedisLifecycle,
    InvalidationBus,
  ],
  exports: [REDIS, InvalidationBus],
})
export class RedisModule {}
