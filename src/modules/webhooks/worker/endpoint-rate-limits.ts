import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { AppConfig } from '../../../config/app-config';
import { closeRedisClient, createRedisClient, type RedisClient } from '../../../redis/redis-client';
import { longestSendMs } from '../core/delivery-settings';

/** The window an endpoint's `rateLimit` counts in: the second a receiver counts its arrivals in. */
export const RATE_WINDOW_MS = 1_000;

/**
 * A send told to wait this long or less waits where it is, holding its claim and endpoint slot, and
 * asks again keeping its turn, rather than going through the queue's delayed set: a send held back
 * comes back about when the window has room, and the room comes when the send a window before it
 * ended, a little later than its start; the queue's round trip on top of that would add its own
 * delay to every `rate` sends.
 */
export const RATE_WAIT_HERE_MS = RATE_WINDOW_MS / 4;

/**
 * A start not yet marked ended counts as ending this long after WEBHOOK_TIMEOUT from its start: the
 * time its send can take before its request starts (the signing secrets, the span). Only a worker
 * killed, or one that lost Redis, mid-send leaves a start unmarked.
 */
export const UNENDED_START_MARGIN_MS = 10_000;

/**
 * Ask to start one send now. KEYS[1], the log: the sends of the last window (a sorted set); each is
 * scored by a time no earlier than its request's arrival at the receiver: its end, once marked
 * (END_LUA), and until then its start + ARGV[5] (the longest a send can take). A new send arrives
 * after its start (now), so a window of `rate` + 1 arrivals would need `rate` others scored after
 * now - window: a send starts only when fewer than `rate` are. Then every window of the receiver's
 * clock holds at most `rate` arrivals, whatever the delays between here and there.
 * KEYS[2]: held until (a receiver's 429 with Retry-After); KEYS[3]: the next start free to be given
 * to a send held back. A send starts now when the log has room, nothing holds the endpoint, and no
 * send held back before it is still waiting (ARGV[4] = '1': it is one of those, back at the time it
 * was given); then it is logged. Otherwise it gets a time to come back: a newcomer the next free
 * one, each one 1/rate of the window after the last, so a burst held back comes back spread out
 * rather than all at once; a send that came back and still found the log full (the ones before it
 * ended late) the moment the log should have room, keeping its turn. That moment counts a send not
 * yet ended as ending now (it will soon), so the send may find the log full again and wait once more.
 * Returns the wait in ms; 0: start now.
 */
const TAKE_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rate = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local cameBack = ARGV[4] == '1'
local unendedMs = tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local held = tonumber(redis.call('GET', KEYS[2]) or '0')
local nextFree = tonumber(redis.call('GET', KEYS[3]) or '0')
if now >= held and count < rate and (cameBack or nextFree <= now) then
  redis.call('ZADD', KEYS[1], now + unendedMs, ARGV[3])
  if redis.call('PTTL', KEYS[1]) < unendedMs + window then redis.call('PEXPIRE', KEYS[1], unendedMs + window) end
  return 0
end
local at = math.max(now, held)
if count >= rate then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  at = math.max(at, math.min(tonumber(oldest[2]), now) + window)
end
if not cameBack then
  at = math.max(at, nextFree)
  local following = at + window / rate
  redis.call('SET', KEYS[3], tostring(following), 'PX', math.ceil(following - now + window))
end
return math.max(1, math.ceil(at - now))
`;

/**
 * A send's request ended (answered, or failed): its entry in the log (ARGV[1]) is scored now, on
 * Redis's clock, which is after the answer came and so after the request arrived. Returns 0 when
 * the entry was no longer there (its unended bound passed first): it is logged again, and the
 * caller reports that the limit may have been exceeded.
 */
const END_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local window = tonumber(ARGV[2])
local present = redis.call('ZSCORE', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[1], now, ARGV[1])
if redis.call('PTTL', KEYS[1]) < window then redis.call('PEXPIRE', KEYS[1], window) end
return present and 1 or 0
`;

/** Hold the endpoint's new starts until now + ARGV[1] ms (never shortening a longer hold). */
const HOLD_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local untilMs = now + tonumber(ARGV[1])
local held = tonumber(redis.call('GET', KEYS[1]) or '0')
if untilMs > held then redis.call('SET', KEYS[1], untilMs, 'PX', tonumber(ARGV[1])) end
return 0
`;

type RateRedis = RedisClient & {
  cpRateTake(log: string, hold: string, next: string, ...args: (string | number)[]): Promise<number>;
  cpRateHold(hold: string, ms: number): Promise<number>;
  cpRateEnd(log: string, startId: string, window: number): Promise<number>;
};

/** take()'s answer: a start (end it with ended() once its request ended), or a wait. */
export type RateTake = { startId: string; waitMs?: undefined } | { startId?: undefined; waitMs: number };

/**
 * Endpoints' rate limits (docs/api.md#webhooks): one budget per endpoint in Redis, shared by every
 * worker. A send asks to start after its claim (which reads the endpoint's `rateLimit`); a send told
 * to wait gives its claim and its endpoint slot back and comes back at the time it was given, so it
 * holds no worker slot meanwhile and is not a failure. A send that started counts in the budget from
 * its start until a window after its request ended (see TAKE_LUA): the limit then holds in every
 * second of the receiver's own clock, across workers, at the cost of the request's duration per
 * `rate` sends (each send holds its place for a second plus its request's duration d, so a receiver
 * gets 1 / (1 + d in seconds) of its limit).
 */
@Injectable()
export class EndpointRateLimits implements OnApplicationShutdown {
  private readonly logger = new Logger(EndpointRateLimits.name);
  private readonly redis: RateRedis;
  private readonly keyPrefix: string;
  private readonly unendedMs: number;

  constructor(config: AppConfig) {
    this.keyPrefix = `${config.REDIS_KEY_PREFIX}:endpoint-rate`;
    // an endpoint's own timeoutMs may outlast WEBHOOK_TIMEOUT: an unended start counts past the longest send
    this.unendedMs = longestSendMs(config) + UNENDED_START_MARGIN_MS;
    // waits out a Redis restart like the endpoint slots; one round trip per turn of the event loop
    const redis = createRedisClient(config, 'endpoint-slots');
    redis.defineCommand('cpRateTake', { numberOfKeys: 3, lua: TAKE_LUA });
    redis.defineCommand('cpRateHold', { numberOfKeys: 1, lua: HOLD_LUA });
    redis.defineCommand('cpRateEnd', { numberOfKeys: 1, lua: END_LUA });
    this.redis = redis as RateRedis;
  }

  /**
   * Asks to start this send now under `rate` sends per second: a start, counted until a window after
   * ended() is called with it, or the wait in ms before it may ask again. `cameBack`: the send was
   * held back and comes back at the time it was given. Waits of up to RATE_WAIT_HERE_MS in all are
   * waited here (the send keeps its turn).
   */
  async take(endpointId: string, rate: number, cameBack: boolean): Promise<RateTake> {
    const waitUntil = performance.now() + RATE_WAIT_HERE_MS;
    let take = await this.ask(endpointId, rate, cameBack);
    while (take.waitMs !== undefined && performance.now() + take.waitMs <= waitUntil) {
      await new Promise((resolve) => setTimeout(resolve, take.waitMs));
      take = await this.ask(endpointId, rate, true);
    }
    return take;
  }

  private async ask(endpointId: string, rate: number, cameBack: boolean): Promise<RateTake> {
    const [log, hold, next] = this.keys(endpointId);
    const startId = randomUUID();
    const waitMs = await this.redis.cpRateTake(
      log,
      hold,
      next,
      rate,
      RATE_WINDOW_MS,
      startId,
      cameBack ? '1' : '0',
      this.unendedMs,
    );
    return waitMs > 0 ? { waitMs } : { startId };
  }

  /**
   * The request of a start ended (answered or failed): it counts for one more window from now. Never
   * throws: a start not marked ended counts until its bound (WEBHOOK_TIMEOUT + a margin) instead.
   */
  async ended(endpointId: string, startId: string): Promise<void> {
    try {
      const present = await this.redis.cpRateEnd(this.keys(endpointId)[0], startId, RATE_WINDOW_MS);
      if (!present)
        this.logger.warn({
          msg: "a rate-limited send ended after its start's bound (WEBHOOK_TIMEOUT + 10 s): the endpoint's rate limit may have been exceeded",
          endpointId,
        });
    } catch (err) {
      this.logger.warn({ err, endpointId }, 'could not mark a rate-limited send ended');
    }
  }

  /** A receiver's 429 asked for `ms` of quiet: the endpoint's sends not yet started wait past it. */
  async hold(endpointId: string, ms: number): Promise<void> {
    if (ms > 0) await this.redis.cpRateHold(this.keys(endpointId)[1], Math.ceil(ms));
  }

  /** The keys share the endpoint's hash tag: one Redis Cluster slot per script. */
  private keys(endpointId: string): [string, string, string] {
    const base = `${this.keyPrefix}:{${endpointId}}`;
    return [`${base}:log`, `${base}:hold`, `${base}:next`];
  }

  async onApplicationShutdown(): Promise<void> {
    await closeRedisClient(this.redis);
  }
}
