import Redis from 'ioredis';
import { loadConfig } from '../config/app-config';
import { waitFor } from '../../test/utils/worker';
import { InvalidationBus } from './invalidation-bus';
import { closeRedisClient } from './redis-client';

// Real Redis (the run's key prefix): two buses stand for two API instances.
describe('InvalidationBus and InvalidatingCache', () => {
  const config = loadConfig(process.env).config;
  const connections: Redis[] = [];
  const buses: InvalidationBus[] = [];

  function startBus(): InvalidationBus {
    const publisher = new Redis(config.REDIS_URL, { keyPrefix: `${config.REDIS_KEY_PREFIX}:` });
    connections.push(publisher);
    const bus = new InvalidationBus(config, publisher);
    bus.onModuleInit();
    buses.push(bus);
    return bus;
  }

  afterAll(async () => {
    await Promise.all(buses.map((b) => b.onModuleDestroy()));
    await Promise.all(connections.map((c) => closeRedisClient(c)));
  });

  /** A cache over a mutable "database" that counts its reads. */
  function source(bus: InvalidationBus, kind: string) {
    const db = new Map<string, string>();
    let reads = 0;
    const cache = bus.cache<string | undefined>(kind, { maxEntries: 100, maxAgeMs: 60_000 });
    return {
      db,
      cache,
      reads: () => reads,
      get: (id: string) =>
        cache.get(id, () => {
          reads++;
          return Promise.resolve(db.get(id));
        }),
    };
  }

  it('publishes on a channel under REDIS_KEY_PREFIX', async () => {
    const bus = startBus();
    expect(bus.channel).toBe(`${config.REDIS_KEY_PREFIX}:invalidate`);
    const listener = new Redis(config.REDIS_URL);
    connections.push(listener);
    const received: string[] = [];
    listener.on('message', (_channel: string, message: string) => received.push(message));
    await listener.subscribe(bus.channel);
    await bus.publish('thing', 'x1');
    await waitFor('the message', () => received.length > 0);
    expect(JSON.parse(received[0])).toEqual({ kind: 'thing', id: 'x1' });
  });

  it('answers from memory while live, and a publish on one instance invalidates the other', async () => {
    const [a, b] = [startBus(), startBus()];
    await waitFor('both subscriptions', () => a.live && b.live);
    const onB = source(b, 'k1');
    onB.db.set('id', 'v1');
    expect(await onB.get('id')).toBe('v1');
    onB.db.set('id', 'v2');
    // Without a message the cached value stands: the cache is in use.
    expect(await onB.get('id')).toBe('v1');
    expect(onB.reads()).toBe(1);

    await a.publish('k1', 'id');
    await waitFor('B to drop its entry', async () => (await onB.get('id')) === 'v2');
    // Another kind is untouched by it.
    const other = source(b, 'k2');
    other.db.set('id', 'o1');
    await other.get('id');
    other.db.set('id', 'o2');
    await a.publish('k1', 'id');
    expect(await other.get('id')).toBe('o1');
  });

  it('answers a hit with the value itself and a miss with a promise, so a warm caller awaits nothing', async () => {
    const bus = startBus();
    await waitFor('subscription', () => bus.live);
    const onBus = source(bus, 'k-sync');
    onBus.db.set('id', 'v1');
    const miss = onBus.get('id');
    expect(miss).toBeInstanceOf(Promise);
    expect(await miss).toBe('v1');
    expect(onBus.get('id')).toBe('v1');
    expect(onBus.reads()).toBe(1);
  });

  it('publishing invalidates the publisher at once, before any message round trip', async () => {
    const a = startBus();
    await waitFor('subscription', () => a.live);
    const onA = source(a, 'k3');
    onA.db.set('id', 'v1');
    await onA.get('id');
    onA.db.set('id', 'v2');
    const published = a.publish('k3', 'id');
    expect(await onA.get('id')).toBe('v2');
    await published;
  });

  it('trusts nothing while it has no subscription: every read goes to the source, nothing is kept', async () => {
    // nothing listens on port 1: the bus keeps trying and never goes live
    const down = loadConfig({ ...process.env, REDIS_URL: 'redis://127.0.0.1:1' }).config;
    const publisher = new Redis(down.REDIS_URL, { lazyConnect: true, enableOfflineQueue: false });
    connections.push(publisher);
    const bus = new InvalidationBus(down, publisher);
    bus.onModuleInit();
    buses.push(bus);
    const onDown = source(bus, 'k4');
    onDown.db.set('id', 'v1');
    expect(await onDown.get('id')).toBe('v1');
    onDown.db.set('id', 'v2'); // its invalidation could not reach this instance
    expect(await onDown.get('id')).toBe('v2');
    expect(onDown.reads()).toBe(2);
    expect(onDown.cache.size).toBe(0);
    expect(bus.live).toBe(false);
  });

  it('forgets everything when its connection drops, and resubscribes by itself on a new one', async () => {
    const [a, b] = [startBus(), startBus()];
    await waitFor('both subscriptions', () => a.live && b.live);
    const onB = source(b, 'k4b');
    onB.db.set('id', 'v1');
    await onB.get('id');
    expect(onB.cache.size).toBe(1);

    // Drop B's subscriber connection: what is published until it is back is lost to B.
    const dropped = (b as unknown as { subscriber: Redis }).subscriber;
    onB.db.set('id', 'v2');
    dropped.disconnect();
    await waitFor('the caches to be emptied', () => onB.cache.size === 0);
    await waitFor(
      'a new subscription',
      () => b.live && (b as unknown as { subscriber: Redis }).subscriber !== dropped,
    );
    expect(await onB.get('id')).toBe('v2');
    expect(onB.cache.size).toBe(1);

    // subscribed again: a publish on A reaches B
    onB.db.set('id', 'v3');
    await a.publish('k4b', 'id');
    await waitFor('the invalidation to reach B', () => onB.cache.size === 0);
    expect(await onB.get('id')).toBe('v3');
  });

  it('does not keep a value loaded across an invalidation (it may predate the change)', async () => {
    const b = startBus();
    await waitFor('subscription', () => b.live);
    const cache = b.cache<string>('k5', { maxEntries: 10, maxAgeMs: 60_000 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const loading = cache.get('id', async () => {
      await gate;
      return 'stale';
    });
    await b.publish('k5', 'id');
    release();
    expect(await loading).toBe('stale');
    expect(cache.size).toBe(0);
    expect(await cache.get('id', () => Promise.resolve('fresh'))).toBe('fresh');
  });

  it('keeps at most maxEntries entries, dropping the oldest', async () => {
    const b = startBus();
    await waitFor('subscription', () => b.live);
    const cache = b.cache<number>('k6', { maxEntries: 2, maxAgeMs: 60_000 });
    for (const id of ['a', 'b', 'c']) await cache.get(id, () => Promise.resolve(1));
    expect(cache.size).toBe(2);
    let reloaded = false;
    await cache.get('a', () => {
      reloaded = true;
      return Promise.resolve(1);
    });
    expect(reloaded).toBe(true);
  });

  it('drops every entry the kind says an id names (a community under its slug), and keeps no value refused by keep', async () => {
    const b = startBus();
    await waitFor('subscription', () => b.live);
    const cache = b.cache<{ id: string } | undefined>('k7', {
      maxEntries: 10,
      maxAgeMs: 60_000,
      drops: (_key, value, id) => value?.id === id,
    });
    await cache.get('by-slug', () => Promise.resolve({ id: 'c1' }));
    await cache.get('c1', () => Promise.resolve({ id: 'c1' }));
    await cache.get('other', () => Promise.resolve({ id: 'c2' }));
    await cache.get(
      'missing',
      () => Promise.resolve(undefined),
      (value) => value !== undefined,
    );
    expect(cache.size).toBe(3); // the "not found" was not kept

    await b.publish('k7', 'c1');
    expect(cache.size).toBe(1); // both names of c1 are gone, c2 stays
    let reloaded = false;
    await cache.get('by-slug', () => {
      reloaded = true;
      return Promise.resolve({ id: 'c1' });
    });
    expect(reloaded).toBe(true);
  });

  it('ignores malformed messages', async () => {
    const b = startBus();
    await waitFor('subscription', () => b.live);
    const raw = new Redis(config.REDIS_URL);
    connections.push(raw);
    await raw.publish(b.channel, 'not json');
    await raw.publish(b.channel, JSON.stringify({ kind: 1 }));
    expect(b.live).toBe(true);
  });
});
