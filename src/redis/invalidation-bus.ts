import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type Redis from 'ioredis';
import { AppConfig } from '../config/app-config';
import { createSubscriberClient, type RedisClient } from './redis-client';
import { REDIS } from './redis.tokens';
import { boundConnection, runAfterCommit } from '../prisma/request-transaction';

/** What changed: `kind` names the cache (e.g. `session`), `id` the entry. */
export interface Invalidation {
  kind: string;
  id: string;
}

interface Listener {
  /** one entry changed */
  invalidate(id: string): void;
  /** messages may have been missed: forget everything */
  reset(): void;
}

/**
 * Tells every API instance that a cached fact changed. Each instance keeps in-process caches of
 * facts whose source of truth is PostgreSQL; whoever changes one publishes `{kind, id}` on
 * `<REDIS_KEY_PREFIX>:invalidate` after committing, and every instance drops its entry.
 *
 * Pub/sub is fire-and-forget: a message sent while an instance is disconnected is lost to it. So
 * an instance trusts its caches only while its subscription is confirmed (`live`), and clears them
 * every time the subscription is (re)established: a lost message can never leave a stale entry.
 *
 * The subscriber reconnects itself (one connection per try, the next seed node each time on a Redis
 * Cluster): a subscription that moved to another node behind our back could have missed messages
 * without our knowing, and a dead master's address never answers again after its failover.
 */
@Injectable()
export class InvalidationBus implements OnModuleInit, OnModuleDestroy {
  readonly channel: string;
  private readonly logger = new Logger(InvalidationBus.name);
  private readonly listeners = new Map<string, Set<Listener>>();
  private subscriber?: Redis;
  private subscribed = false;
  private closing = false;
  /** consecutive connections that ended before subscribing: picks the node and the back-off */
  private failures = 0;
  private retry?: NodeJS.Timeout;

  constructor(
    private readonly config: AppConfig,
    @Inject(REDIS) private readonly publisher: RedisClient,
  ) {
    // Channels are not keys: ioredis's keyPrefix does not apply to them, so the prefix is explicit.
    this.channel = `${config.REDIS_KEY_PREFIX}:invalidate`;
  }

  /** True while this instance's subscription is confirmed: only then may caches answer from memory. */
  get live(): boolean {
    return this.subscribed;
  }

  onModuleInit(): void {
    this.connect();
  }

  async onModuleDestroy(): Promise<void> {
    this.closing = true;
    clearTimeout(this.retry);
    this.lost();
    const subscriber = this.subscriber;
    if (!subscriber) return;
    // quit() on a connection that is not up would wait for a reconnect that may never come.
    if (subscriber.status === 'ready') await subscriber.quit().catch(() => subscriber.disconnect());
    else subscriber.disconnect();
  }

  /**
   * A connection of its own: a subscribed connection can run no other command. Subscribing is not
   * awaited, so the API starts while Redis is down; until it is live every lookup reads the database.
   * When the connection ends, the next one is opened (at once the first time, then backing off as
   * ioredis does, up to 2 s).
   */
  private connect(): void {
    if (this.closing) return;
    const subscriber = createSubscriberClient(this.config, this.failures);
    this.subscriber = subscriber;
    subscriber.on('ready', () => void this.subscribe(subscriber));
    subscriber.on('close', () => this.lost());
    subscriber.once('end', () => {
      this.lost();
      if (this.closing) return;
      const delayMs = Math.min(this.failures * 50, 2000);
      this.failures++;
      this.retry = setTimeout(() => this.connect(), delayMs);
    });
    subscriber.on('error', (err: Error) => {
      this.lost();
      this.logger.warn({ err: err.message }, 'invalidation subscriber connection error');
    });
    subscriber.on('message', (channel: string, raw: string) => {
      if (channel === this.channel) this.deliver(raw);
    });
    subscriber.connect().catch(() => undefined); // 'end' opens the next one; 'error' logs it
  }

  /** Registers the cache of `kind`; returns the function that unregisters it. */
  on(kind: string, listener: Listener): () => void {
    const set = this.listeners.get(kind) ?? new Set<Listener>();
    set.add(listener);
    this.listeners.set(kind, set);
    return () => set.delete(listener);
  }

  /**
   * Call after the change is committed. This instance's caches are invalidated at once; the others
   * when the message reaches them. A failed publish is logged, not thrown: the change is already
   * committed, and entries expire on their own (InvalidatingCache's maxAgeMs) as a last resort.
   */
  async publish(kind: string, id: string): Promise<void> {
    // inside a request whose writes commit only when it answers (an Idempotency-Key's transaction),
    // a cache invalidated now could re-read the row before that commit and keep the old value
    if (boundConnection()) return runAfterCommit(() => void this.publish(kind, id));
    this.listeners.get(kind)?.forEach((l) => l.invalidate(id));
    try {
      await this.publisher.publish(this.channel, JSON.stringify({ kind, id } satisfies Invalidation));
    } catch (err) {
      this.logger.error({ err, kind, id }, 'could not publish a cache invalidation');
    }
  }

  /** A cache of `kind` that this bus keeps honest. */
  cache<V>(kind: string, options: CacheOptions<V>): InvalidatingCache<V> {
    return new InvalidatingCache<V>(this, kind, options);
  }

  private async subscribe(subscriber: Redis): Promise<void> {
    try {
      await subscriber.subscribe(this.channel);
    } catch (err) {
      this.logger.warn({ err }, 'could not subscribe to cache invalidations');
      return;
    }
    if (this.closing || subscriber.status !== 'ready') return;
    this.failures = 0;
    // Whatever was published while we were away is lost: start from empty caches.
    this.listeners.forEach((set) => set.forEach((l) => l.reset()));
    this.subscribed = true;
  }

  private lost(): void {
    if (!this.subscribed) return;
    this.subscribed = false;
    this.listeners.forEach((set) => set.forEach((l) => l.reset()));
  }

  private deliver(raw: string): void {
    let message: Partial<Invalidation>;
    try {
      message = JSON.parse(raw) as Partial<Invalidation>;
    } catch {
      return;
    }
    if (typeof message.kind !== 'string' || typeof message.id !== 'string') return;
    const id = message.id;
    this.listeners.get(message.kind)?.forEach((l) => l.invalidate(id));
  }
}

export interface CacheOptions<V = unknown> {
  /** entries kept at most (the oldest is dropped first) */
  maxEntries: number;
  /** an entry is re-read after this long even if no message came: the bound on a lost publish */
  maxAgeMs: number;
  /**
   * Which entries an invalidation of `id` drops, when more than the entry keyed `id` (a community
   * cached under its slug too, every member of a community at once). Scans the cache: for rare
   * invalidations only.
   */
  drops?: (key: string, value: V, id: string) => boolean;
}

interface Entry<V> {
  value: V;
  expiresAt: number;
}

/**
 * An in-process read-through cache kept honest by the bus. It answers from memory only while the
 * bus is live; a load whose result may be stale by the time it returns (an invalidation or a
 * reconnect happened meanwhile) is returned but not kept.
 */
export class InvalidatingCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  /** bumped on every invalidation and reset; a load started under an older value is not kept */
  private generation = 0;

  constructor(
    private readonly bus: InvalidationBus,
    kind: string,
    private readonly options: CacheOptions<V>,
  ) {
    bus.on(kind, { invalidate: (id) => this.invalidate(id), reset: () => this.reset() });
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * The cached value of `id` itself, or a promise of `load()`'s, kept when `keep` says so (e.g. not a
   * "not found"). A hit is answered without a promise: the warm path of every request (the caller's
   * key, community and role) then awaits nothing, and a guard built on it answers synchronously
   * (whenReady in src/common/async/when-ready.ts; docs/architecture.md#a-warm-request-awaits-nothing).
   */
  get(id: string, load: () => Promise<V>, keep: (value: V) => boolean = () => true): V | Promise<V> {
    const hit = this.entries.get(id);
    if (hit && this.bus.live && hit.expiresAt > Date.now()) return hit.value;
    return this.loadAndKeep(id, load, keep);
  }

  private async loadAndKeep(id: string, load: () => Promise<V>, keep: (value: V) => boolean): Promise<V> {
    const generation = this.generation;
    const live = this.bus.live;
    const value = await load();
    if (live && this.bus.live && generation === this.generation && keep(value)) this.set(id, value);
    return value;
  }

  invalidate(id: string): void {
    this.generation++;
    this.entries.delete(id);
    const drops = this.options.drops;
    if (drops)
      for (const [key, entry] of this.entries) if (drops(key, entry.value, id)) this.entries.delete(key);
  }

  reset(): void {
    this.generation++;
    this.entries.clear();
  }

  private set(id: string, value: V): void {
    this.entries.delete(id);
    if (this.entries.size >= this.options.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(id, { value, expiresAt: Date.now() + this.options.maxAgeMs });
  }
}
