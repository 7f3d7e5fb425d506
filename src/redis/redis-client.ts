import Redis, { Cluster, ClusterOptions, RedisOptions } from 'ioredis';
import type { AppConfig } from '../config/app-config';
import { EndingRedis } from './ending-redis';

/** A connection to the service's Redis: one node (REDIS_URL) or a Redis Cluster (REDIS_CLUSTER_NODES). */
export type RedisClient = Redis | Cluster;

/** What the factory reads of the configuration (the preflight probe has no AppConfig yet). */
export type RedisTarget = Pick<AppConfig, 'REDIS_URL' | 'REDIS_KEY_PREFIX' | 'redisClusterNodes'>;

/**
 * Every connection the service opens to Redis, and why its options differ. The only place that
 * builds a Redis client: each use names its role, so switching to a cluster switches them all.
 */
export type RedisRole =
  /** the API's shared client: rate limits, login limits, health, invalidation publishes; keys prefixed */
  | 'shared'
  /** BullMQ producer: fails fast, the PENDING rows are the schedule and the sweep re-queues */
  | 'queue-producer'
  /** BullMQ worker: waits out an outage (maxRetriesPerRequest null, which BullMQ requires); connects when BullMQ starts it */
  | 'queue-worker'
  /** the endpoint-slot scripts: wait out an outage; a turn's scripts share one round trip */
  | 'endpoint-slots'
  /** the start-up probe: one try, no reconnect */
  | 'probe';

const ROLE_OPTIONS: Record<RedisRole, RedisOptions> = {
  shared: { maxRetriesPerRequest: 2, enableOfflineQueue: true },
  'queue-producer': {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: (times: number) => Math.min(times * 100, 2000),
  },
  'queue-worker': { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: true },
  'endpoint-slots': { maxRetriesPerRequest: null, enableAutoPipelining: true },
  probe: { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null },
};

/**
 * The BullMQ prefix: REDIS_KEY_PREFIX as a hash tag. BullMQ's scripts touch many keys of a queue at
 * once, which a cluster allows only within one slot: `{cp}:webhook-deliveries:…` all hash to the
 * slot of `cp`. The same prefix on a single node, so that one layout is tested and deployed.
 */
export function queuePrefix(config: Pick<AppConfig, 'REDIS_KEY_PREFIX'>): string {
  return `{${config.REDIS_KEY_PREFIX}}`;
}

/**
 * A new connection for `role`. On a cluster it is an ioredis Cluster over the seed nodes: it learns
 * the slot map, follows MOVED/ASK, and after a failover refreshes the map and retries, so a command
 * in flight during a failover waits (or fails, per its role) instead of going to a dead master.
 * `options` adds to the role's (keyPrefix, lazyConnect, connectTimeout).
 */
export function createRedisClient(
  target: RedisTarget,
  role: RedisRole,
  options: RedisOptions = {},
): RedisClient {
  const { keyPrefix, lazyConnect, enableOfflineQueue, enableAutoPipelining, retryStrategy, ...node } = {
    ...ROLE_OPTIONS[role],
    ...(role === 'shared' ? { keyPrefix: `${target.REDIS_KEY_PREFIX}:` } : {}),
    ...options,
  };
  const seeds = target.redisClusterNodes;
  if (!seeds) {
    return new EndingRedis(target.REDIS_URL, {
      ...node,
      keyPrefix,
      lazyConnect,
      enableOfflineQueue,
      enableAutoPipelining,
      retryStrategy,
    });
  }
  const cluster: ClusterOptions = {
    keyPrefix,
    lazyConnect,
    enableOfflineQueue,
    enableAutoPipelining,
    clusterRetryStrategy: retryStrategy ?? ((times: number) => Math.min(100 + times * 2, 2000)),
    // REDIS_URL lends the credentials (and TLS) every node of the cluster shares
    redisOptions: { ...node, ...credentials(target.REDIS_URL) },
    // a failover takes about cluster-node-timeout; a command meanwhile retries on the new map
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 200,
    retryDelayOnTryAgain: 200,
    slotsRefreshTimeout: 2000,
  };
  return new Cluster(seeds, cluster);
}

/**
 * A connection for SUBSCRIBE to one node: the `attempt`-th seed of a cluster (so a reconnect after
 * a failover moves on to another node), or REDIS_URL. Not an ioredis Cluster: its subscriber moves
 * to another node silently, and a subscriber must know when it may have missed a message. Classic
 * pub/sub on a cluster is broadcast to every node, so any node hears every publish. It does not
 * reconnect by itself (retryStrategy null): the caller opens the next one, on the next seed.
 */
export function createSubscriberClient(target: RedisTarget, attempt: number): Redis {
  const options: RedisOptions = {
    autoResubscribe: false,
    maxRetriesPerRequest: null,
    lazyConnect: true,
    retryStrategy: () => null,
  };
  const seeds = target.redisClusterNodes;
  if (!seeds) return new EndingRedis(target.REDIS_URL, options);
  const seed = seeds[attempt % seeds.length];
  return new EndingRedis({ ...options, ...credentials(target.REDIS_URL), host: seed.host, port: seed.port });
}

/** Quits a connection that is up; drops one that is not (quit would wait for a reconnect that may never come). */
export async function closeRedisClient(client: RedisClient): Promise<void> {
  if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
  else client.disconnect();
}

/** Where the client is connected, for messages: host:port of REDIS_URL or of the seeds, never credentials. */
export function describeRedis(target: RedisTarget): string {
  const seeds = target.redisClusterNodes;
  if (seeds)
    return `the Redis Cluster at ${seeds.map((s) => `${s.host}:${s.port}`).join(',')} (REDIS_CLUSTER_NODES)`;
  let host: string;
  try {
    host = new URL(target.REDIS_URL).host || target.REDIS_URL;
  } catch {
    host = '(unparsable URL)';
  }
  return `Redis at ${host} (REDIS_URL)`;
}

function credentials(url: string): RedisOptions {
  const parsed = new URL(url);
  return {
    username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    tls: parsed.protocol === 'rediss:' ? {} : undefined,
  };
}
