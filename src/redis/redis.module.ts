import { Global, Inject, Injectable, Module, OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { InvalidationBus } from './invalidation-bus';
import { closeRedisClient, createRedisClient, type RedisClient } from './redis-client';
import { REDIS } from './redis.tokens';

export { REDIS } from './redis.tokens';

@Injectable()
class RedisLifecycle implements OnModuleDestroy {
  constructor(@Inject(REDIS) private readonly redis: RedisClient) {}
  onModuleDestroy(): Promise<void> {
    return closeRedisClient(this.redis);
  }
}

/**
 * One shared ioredis connection for the API (rate-limit buckets, health), and the invalidation bus
 * that keeps every instance's in-process caches honest (it opens a subscriber connection of its
 * own). Keys are prefixed with REDIS_KEY_PREFIX so environments and test runs never collide. A
 * single node or a Redis Cluster, as the configuration says (src/redis/redis-client.ts).
 */
@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => createRedisClient(config, 'shared'),
    },
    RedisLifecycle,
    InvalidationBus,
  ],
  exports: [REDIS, InvalidationBus],
})
export class RedisModule {}
