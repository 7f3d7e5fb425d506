import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import {
  isHostPort,
  IsListOf,
  IsPositiveDuration,
  toBool,
  toInt,
  urlSaysPgbouncer,
} from '../config-validation';
import { ServerSettings } from './server.settings';

/**
 * PostgreSQL (primary, PgBouncer, replica) and Redis.
 * One part of AppConfig (src/config/app-config.ts), which validates them all at once; the parts extend
 * one another only so that one class holds every setting.
 */
export class StorageSettings extends ServerSettings {
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgresql:// URL' })
  DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/community_platform';

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(200)
  DATABASE_POOL_SIZE = 10;

  /**
   * The API's second pool, for its hot reads as named prepared statements (PrismaService.preparedQuery),
   * opened lazily (the worker and the CLI never open it). Not used through PgBouncer.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(200)
  DATABASE_PREPARED_POOL_SIZE = 4;

  /**
   * DATABASE_URL goes through PgBouncer in transaction pooling mode (also turned on by `pgbouncer=true`
   * in DATABASE_URL's query): no named prepared statements (a pgbouncer before 1.21 cannot follow them
   * from one server connection to the next), and no LISTEN on DATABASE_URL (see DATABASE_DIRECT_URL).
   */
  @Transform(toBool)
  @IsBoolean()
  DATABASE_PGBOUNCER = false;

  /**
   * PostgreSQL itself, bypassing PgBouncer: the worker's LISTEN for outbox commits and `prisma migrate
   * deploy` (its session advisory lock) use it. Behind PgBouncer without it, the relay polls every
   * OUTBOX_POLL_INTERVAL instead of listening.
   */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_DIRECT_URL must be a postgresql:// URL' })
  DATABASE_DIRECT_URL?: string;

  /**
   * How long a request waits for a database connection (the pool's and the server's) before it fails
   * with 503 SERVICE_UNAVAILABLE: while no primary accepts connections (a failover), a write is
   * refused within this instead of waiting (docs/operations.md#database-failover).
   */
  @IsPositiveDuration('5s')
  DATABASE_CONNECT_TIMEOUT = '5s';

  /**
   * A replica (or a pool of them behind one address) for the heavy reads that tolerate lag: the
   * delivery log, the messages views, the figures and the paged lists
   * (docs/architecture.md#read-replicas). Unset: every read goes to DATABASE_URL.
   */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_READ_URL must be a postgresql:// URL' })
  DATABASE_READ_URL?: string;

  /** Past this replica lag (or while it is unknown), those reads go back to DATABASE_URL. */
  @IsPositiveDuration('10s')
  DATABASE_READ_MAX_LAG = '10s';

  /** How often the API measures the replica's lag (database_replica_lag_seconds). */
  @IsPositiveDuration('1s')
  DATABASE_READ_LAG_CHECK_INTERVAL = '1s';

  @Matches(/^rediss?:\/\//, { message: 'REDIS_URL must be a redis:// URL' })
  REDIS_URL = 'redis://127.0.0.1:6379';

  /**
   * Seed nodes of a Redis Cluster (comma-separated host:port). Set, every Redis use of the process
   * goes to the cluster (src/redis/redis-client.ts) and REDIS_URL only lends its credentials.
   */
  @IsOptional()
  @IsListOf(
    isHostPort,
    'REDIS_CLUSTER_NODES must be a comma-separated list of host:port, e.g. 10.0.0.1:7000,10.0.0.2:7000',
  )
  REDIS_CLUSTER_NODES?: string;

  /** Prefix of every Redis key (queues, rate-limit buckets): one per environment. */
  @Matches(/^[A-Za-z0-9:_-]{1,64}$/, { message: 'REDIS_KEY_PREFIX must be 1-64 of A-Z a-z 0-9 : _ -' })
  REDIS_KEY_PREFIX = 'cp';

  /** DATABASE_URL leads to PgBouncer in transaction mode (DATABASE_PGBOUNCER or `?pgbouncer=true`). */
  get databaseThroughPgbouncer(): boolean {
    return this.DATABASE_PGBOUNCER || urlSaysPgbouncer(this.DATABASE_URL);
  }

  /**
   * Where a session of its own (LISTEN) may be held: DATABASE_DIRECT_URL, else DATABASE_URL unless
   * that is PgBouncer (a LISTEN there lands on a server connection other clients then share).
   */
  get databaseSessionUrl(): string | undefined {
    return this.DATABASE_DIRECT_URL ?? (this.databaseThroughPgbouncer ? undefined : this.DATABASE_URL);
  }

  /** The Redis Cluster's seed nodes, or undefined for the single node at REDIS_URL. */
  get redisClusterNodes(): { host: string; port: number }[] | undefined {
    return this.REDIS_CLUSTER_NODES?.split(',').map((entry) => {
      const at = entry.trim().lastIndexOf(':');
      return {
        host: entry
          .trim()
          .slice(0, at)
          .replace(/^\[|\]$/g, ''),
        port: Number(entry.trim().slice(at + 1)),
      };
    });
  }
}
