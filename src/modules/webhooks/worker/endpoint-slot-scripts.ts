import type { AppConfig } from '../../../config/app-config';
import { createRedisClient, type RedisClient } from '../../../redis/redis-client';

/*
 * The Lua scripts of the endpoint slots (endpoint-slots.ts): each runs on Redis's clock and touches
 * one endpoint's keys only (its leases and its waiters share a hash tag), so every worker agrees on
 * the slots and each script stays in one slot of a Redis Cluster.
 */

/**
 * Acquire: drop expired leases, then take a lease if fewer than `capacity` are live, on Redis's
 * clock so every worker agrees. A job that gets its slot is no longer a waiter.
 * Returns {1, 0, 0} when acquired, {0, ms until the soonest lease expires, jobs parked} when full.
 */
const ACQUIRE_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local capacity = tonumber(ARGV[1])
local leaseMs = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < capacity then
  redis.call('ZADD', KEYS[1], now + leaseMs, ARGV[3])
  if redis.call('PTTL', KEYS[1]) < leaseMs then redis.call('PEXPIRE', KEYS[1], leaseMs) end
  redis.call('LREM', KEYS[2], 0, ARGV[4])
  return {1, 0, 0}
end
local soonest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {0, tonumber(soonest[2]) - now, redis.call('LLEN', KEYS[2])}
`;

/**
 * Renew: every lease of ARGV[2..] still in the set runs for ARGV[1] ms from now. Returns the ids
 * that are gone (expired and dropped by another worker's script): those slots may have been taken.
 * A lease past its expiry but still in the set is renewed: every script that counts the slots drops
 * the expired ones first, so nobody has counted that slot free yet.
 */
const RENEW_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local leaseMs = tonumber(ARGV[1])
local lost = {}
for i = 2, #ARGV do
  if redis.call('ZSCORE', KEYS[1], ARGV[i]) then
    redis.call('ZADD', KEYS[1], now + leaseMs, ARGV[i])
  else
    lost[#lost + 1] = ARGV[i]
  end
end
if redis.call('PTTL', KEYS[1]) < leaseMs then redis.call('PEXPIRE', KEYS[1], leaseMs) end
return lost
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

/**
 * Hand-over: a lease that passes from a finished job to a job of the same endpoint waiting in this
 * worker is renewed to a full lease period, unless jobs wait in Redis (parked, maybe by another
 * worker): then it is freed like RELEASE and the longest waiter is answered, so a worker that
 * keeps handing its leases over cannot keep the others' jobs parked for more than one lease period.
 * Returns {1} when renewed, {0, waiter or ''} when freed (or already expired and gone).
 */
const HAND_OVER_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local leaseMs = tonumber(ARGV[2])
if redis.call('LLEN', KEYS[2]) == 0 and redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  redis.call('ZADD', KEYS[1], now + leaseMs, ARGV[1])
  if redis.call('PTTL', KEYS[1]) < leaseMs then redis.call('PEXPIRE', KEYS[1], leaseMs) end
  return {1}
end
redis.call('ZREM', KEYS[1], ARGV[1])
return {0, redis.call('LPOP', KEYS[2]) or ''}
`;

/** Release: free the lease and hand back the longest-waiting job to wake, if any. */
const RELEASE_LUA = `
if ARGV[1] ~= '' then redis.call('ZREM', KEYS[1], ARGV[1]) end
return redis.call('LPOP', KEYS[2])
`;

export type SlotsRedis = RedisClient & {
  cpSlotAcquire(
    leases: string,
    waiters: string,
    ...args: (string | number)[]
  ): Promise<[number, number, number]>;
  cpSlotRenew(leases: string, ...args: (string | number)[]): Promise<string[]>;
  cpSlotPark(leases: string, waiters: string, ...args: (string | number)[]): Promise<number>;
  cpSlotRelease(leases: string, waiters: string, leaseId: string): Promise<string | null>;
  cpSlotHandOver(leases: string, waiters: string, ...args: (string | number)[]): Promise<[number, string?]>;
};

/**
 * The endpoint slots' own connection, with the scripts defined: it waits out a Redis restart
 * instead of failing the job, and the scripts of every job that starts or ends in one turn of the
 * event loop (and one renewal round's) share one round trip.
 */
export function slotsRedis(config: AppConfig): SlotsRedis {
  const redis = createRedisClient(config, 'endpoint-slots');
  redis.defineCommand('cpSlotAcquire', { numberOfKeys: 2, lua: ACQUIRE_LUA });
  redis.defineCommand('cpSlotRenew', { numberOfKeys: 1, lua: RENEW_LUA });
  redis.defineCommand('cpSlotPark', { numberOfKeys: 2, lua: PARK_LUA });
  redis.defineCommand('cpSlotRelease', { numberOfKeys: 2, lua: RELEASE_LUA });
  redis.defineCommand('cpSlotHandOver', { numberOfKeys: 2, lua: HAND_OVER_LUA });
  return redis as SlotsRedis;
}
