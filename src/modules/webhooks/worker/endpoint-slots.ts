import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { DelayedError, Job } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { AppConfig } from '../../../config/app-config';
import { closeRedisClient, createRedisClient, type RedisClient } from '../../../redis/redis-client';
import type { DeliveryJobData } from '../core/delivery-job';
import { DeliveryQueue } from '../core/delivery-queue.service';

/**
 * A lease outlives the longest send (WEBHOOK_TIMEOUT) by this much, to cover the database work
 * around it. A worker killed mid-send therefore holds its slots at most WEBHOOK_TIMEOUT + this.
 */
export const LEASE_MARGIN_MS = 10_000;
/** A parked job wakes by itself after at least this long if no release woke it first. */
const MIN_PARK_MS = 250;
/** A release tries this many waiters at most before giving up on waking one (stale ids). */
const MAX_WAKE_TRIES = 5;

/**
 * Acquire: drop expired leases, then take a lease if fewer than `capacity` are live, on Redis's
 * clock so every worker agrees. A job that gets its slot is no longer a waiter.
 * Returns {1, 0} when acquired, {0, ms until the soonest lease expires} when full.
 */
const ACQUIRE_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local capacity = tonumber(ARGV[1])
local leaseMs = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < capacity then
  redis.call('ZADD', KEYS[1], now + leaseMs, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], leaseMs)
  redis.call('LREM', KEYS[2], 0, ARGV[4])
  return {1, 0}
end
local soonest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {0, tonumber(soonest[2]) - now}
`;

/**
 * Park, run once the job already sits in the delayed set: if a slot freed meanwhile, say so (the
 * caller wakes the job itself); otherwise put the job on the waiter list. Being atomic with
 * RELEASE, no release can fall between "full" and "registered": a wake-up is never lost.
 */
const PARK_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then return 1 end
redis.call('LREM', KEYS[2], 0, ARGV[2])
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[3]))
return 0
`;

/** Release: free the lease and hand back the longest-waiting job to wake, if any. */
const RELEASE_LUA = `
if ARGV[1] ~= '' then redis.call('ZREM', KEYS[1], ARGV[1]) end
return redis.call('LPOP', KEYS[2])
`;

type SlotsRedis = RedisClient & {
  cpSlotAcquire(leases: string, waiters: string, ...args: (string | number)[]): Promise<[number, number]>;
  cpSlotPark(leases: string, waiters: string, ...args: (string | number)[]): Promise<number>;
  cpSlotRelease(leases: string, waiters: string, leaseId: string): Promise<string | null>;
};

/**
 * Fairness between endpoints (docs/product-decisions.md#5-webhooks): at most WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT attempts of
 * one endpoint run at once across every worker. The cap is a lease semaphore per endpoint in Redis
 * (a sorted set of lease ids scored by expiry, so a killed worker's slots free themselves). A job
 * that finds its endpoint full does not wait in its worker slot: it goes back to BullMQ's delayed
 * set and onto the endpoint's waiter list, and the next release promotes it; if nothing wakes it,
 * it wakes itself when the soonest lease would expire. A hanging receiver thus holds at most N
 * worker slots, and every other endpoint's jobs keep flowing through the rest.
 */
@Injectable()
export class EndpointSlots implements OnApplicationShutdown {
  private readonly logger = new Logger(EndpointSlots.name);
  private readonly redis: SlotsRedis;
  private readonly capacity: number;
  private readonly leaseMs: number;
  private readonly keyPrefix: string;

  constructor(
    config: AppConfig,
    private readonly queue: DeliveryQueue,
  ) {
    this.capacity = config.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT;
    this.leaseMs = config.webhookTimeoutMs + LEASE_MARGIN_MS;
    this.keyPrefix = `${config.REDIS_KEY_PREFIX}:endpoint-slots`;
    // its own connection: it waits out a Redis restart instead of failing the job; the scripts of
    // every job that starts or ends in one turn of the event loop share one round trip
    const redis = createRedisClient(config, 'endpoint-slots');
    redis.defineCommand('cpSlotAcquire', { numberOfKeys: 2, lua: ACQUIRE_LUA });
    redis.defineCommand('cpSlotPark', { numberOfKeys: 2, lua: PARK_LUA });
    redis.defineCommand('cpSlotRelease', { numberOfKeys: 2, lua: RELEASE_LUA });
    this.redis = redis as SlotsRedis;
  }

  /**
   * Runs `work` holding one of the endpoint's slots. When none is free the job is parked (moved
   * to delayed with `token`) and DelayedError is thrown, which BullMQ takes as "not done, not
   * failed": the job keeps its attempt count and runs again when woken.
   */
  async run(job: Job<DeliveryJobData>, token: string | undefined, work: () => Promise<void>): Promise<void> {
    const { endpointId } = job.data;
    const jobId = job.id ?? '';
    const leaseId = randomUUID();
    const [leases, waiters] = this.keys(endpointId);
    const [acquired, soonestExpiryMs] = await this.redis.cpSlotAcquire(
      leases,
      waiters,
      this.capacity,
      this.leaseMs,
      leaseId,
      jobId,
    );
    if (!acquired) {
      await this.park(job, token, soonestExpiryMs);
      throw new DelayedError();
    }
    try {
      await work();
    } finally {
      await this.release(endpointId, leaseId);
    }
  }

  private async park(job: Job<DeliveryJobData>, token: string | undefined, soonestExpiryMs: number) {
    const [leases, waiters] = this.keys(job.data.endpointId);
    // A release wakes it (see PARK_LUA); this timer only covers a holder that died (its lease
    // expires) or a lost wake. Spread over a whole lease period so that the parked jobs of a
    // slow endpoint do not all wake at once.
    const fallbackMs = Math.max(soonestExpiryMs, MIN_PARK_MS) + Math.random() * this.leaseMs;
    await job.moveToDelayed(Date.now() + Math.round(fallbackMs), token);
    const slotFreed = await this.redis.cpSlotPark(
      leases,
      waiters,
      this.capacity,
      job.id ?? '',
      this.leaseMs * 2,
    );
    if (slotFreed) await this.wake(job.id ?? '');
  }

  private async release(endpointId: string, leaseId: string): Promise<void> {
    const [leases, waiters] = this.keys(endpointId);
    try {
      let next = await this.redis.cpSlotRelease(leases, waiters, leaseId);
      // a waiter id may be stale (the job woke by itself and is running): try the next one
      for (let tries = 1; next && !(await this.wake(next)) && tries < MAX_WAKE_TRIES; tries++)
        next = await this.redis.cpSlotRelease(leases, waiters, '');
    } catch (err) {
      // the lease then expires by itself; parked jobs wake on their own timer
      this.logger.warn({ err, endpointId }, 'could not release an endpoint slot');
    }
  }

  /** Moves a parked job from delayed to waiting; false when it is not parked (any more). */
  private async wake(jobId: string): Promise<boolean> {
    const job = await this.queue.queue.getJob(jobId);
    if (!job) return false;
    return job.promote().then(
      () => true,
      () => false,
    );
  }

  /**
   * Both keys of an endpoint share a hash tag (the endpoint's id), so each script touches one slot
   * of a Redis Cluster, and different endpoints spread over the cluster's masters.
   */
  private keys(endpointId: string): [string, string] {
    const base = `${this.keyPrefix}:{${endpointId}}`;
    return [`${base}:leases`, `${base}:waiters`];
  }

  async onApplicationShutdown(): Promise<void> {
    await closeRedisClient(this.redis);
  }
}
