import Redis from 'ioredis';
import { DELIVERY_QUEUE } from '../../src/modules/webhooks/core/delivery-job';
import { InvalidationBus } from '../../src/redis/invalidation-bus';
import { createTestApp, TestApp } from '../utils/app';
import { keyCachedOnBRevokedOnA, memberWithToken } from '../utils/factories';
import { call } from '../utils/http';
import { RedisCluster, startRedisCluster } from '../utils/redis-cluster';
import { Receiver, startReceiver } from '../utils/webhook-receiver';
import { createEndpoint, DELIVERY_TEST_ENV, startTestWorker, TestWorker, waitFor } from '../utils/worker';
import { requestsPerMessage } from './delivery-helpers';

jest.setTimeout(120_000);

/**
 * How soon a revocation through one API must be refused by another
 * (docs/product-decisions.md#2-identities-login-api-keys).
 */
const PROPAGATION_MS = 1_000;

// REDIS_CLUSTER_NODES set: two APIs and a worker on a 3-master Redis Cluster of the test's own
// (one replica each). Nothing here may touch the machine's Redis. The seed listed first is the
// master `victim`, and the key prefix is chosen so that the queue's hash tag lives on it too: the
// failover test then takes away the node holding the queue AND the node both APIs subscribe on.
describe('on a Redis Cluster (REDIS_CLUSTER_NODES)', () => {
  let cluster: RedisCluster;
  let victim: number;
  let prefix: string;
  let a: TestApp;
  let b: TestApp;
  let worker: TestWorker;
  let receiver: Receiver;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    victim = (await cluster.masters())[0];
    for (let n = 0; !prefix; n++) {
      const candidate = `${process.env.REDIS_KEY_PREFIX}_cluster${n}`;
      if ((await cluster.masterFor(`{${candidate}}`)) === victim) prefix = candidate;
    }
    const seeds = [victim, ...cluster.ports.filter((p) => p !== victim)].map((p) => `127.0.0.1:${p}`);
    const env = { ...DELIVERY_TEST_ENV, REDIS_CLUSTER_NODES: seeds.join(','), REDIS_KEY_PREFIX: prefix };
    [a, b] = await Promise.all([createTestApp(env), createTestApp(env)]);
    // below 5 a worker runs none of the attempts it relays itself (LocalDeliveries): every event
    // then takes the queue, whose keys the first test looks for on the cluster
    worker = await startTestWorker({ ...env, WORKER_CONCURRENCY: '4' });
    receiver = await startReceiver();
    await bothLive();
  });

  afterAll(async () => {
    await worker?.stop();
    await Promise.all([a?.close(), b?.close()]);
    await receiver?.close();
    await cluster?.stop();
  });

  const bothLive = () =>
    waitFor('both APIs subscribed', () => [a, b].every((t) => t.app.get(InvalidationBus).live), 15_000);

  /** A PRO community with an endpoint at a path of its own; `post` raises tweet.created through API A. */
  async function deliveringCommunity(name: string) {
    const { community, token } = await memberWithToken(a.app, { plan: 'PRO', role: 'OWNER' });
    const path = `/${name}-${community.id}`;
    await createEndpoint(a, community.id, { url: receiver.url + path, events: ['tweet.created'] });
    const post = async (content: string) => {
      const res = await call(a.app, 'POST', '/api/sdk/tweets', { token, body: { content } });
      expect(res.status).toBe(201);
    };
    return { community, path, post };
  }

  it('delivers an event end to end through a queue that lives on the cluster, not on REDIS_URL', async () => {
    const { path, post } = await deliveringCommunity('e2e');
    await post('over the cluster');
    await waitFor('the delivery', () => receiver.at(path).length === 1);
    expect([...requestsPerMessage(receiver, path).values()]).toEqual([1]);

    // the queue's keys carry the hash tag {prefix} and sit on the master of that slot
    const queueId = `{${prefix}}:${DELIVERY_QUEUE}:id`;
    expect(await cluster.cli(victim, 'exists', queueId)).toBe('1\n');
    const single = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    try {
      expect(await single.exists(queueId)).toBe(0);
    } finally {
      single.disconnect();
    }
  });

  it('keeps a rate limit exact when the calls are spread over two APIs', async () => {
    const { community, token } = await memberWithToken(a.app, { plan: 'PRO' });
    const body = { url: receiver.url, events: ['tweet.created'] };
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        call(i % 2 ? a.app : b.app, 'POST', `/api/communities/${community.id}/webhooks`, { token, body }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(10);
    expect(results.filter((r) => r.status === 429)).toHaveLength(6);
  });

  /** Revokes the caller's key through A; resolves with how long B took to refuse it. */
  async function revokeOnAThenRefusedByB(): Promise<number> {
    const tweets = await keyCachedOnBRevokedOnA(a.app, b.app);
    const started = Date.now();
    await waitFor(
      'B to refuse the revoked key',
      async () => (await tweets()).status === 401,
      PROPAGATION_MS,
      10,
    );
    return Date.now() - started;
  }

  it('a key revoked through one API is refused by the other within a second (the bus over the cluster)', async () => {
    expect(await revokeOnAThenRefusedByB()).toBeLessThanOrEqual(PROPAGATION_MS);
  });

  it('a master killed mid-burst and its replica promoted: every event arrives once, the bus resubscribes', async () => {
    const { path, post } = await deliveringCommunity('failover');
    for (let n = 0; n < 5; n++) await post(`before ${n}`);
    await waitFor('the deliveries before the kill', () => receiver.at(path).length === 5);

    // the kill and a burst at once: the outbox keeps what the queue cannot take, the sweep re-queues
    const killed = cluster.killMaster(victim);
    for (let n = 0; n < 5; n++) await post(`during ${n}`);
    const { promoted, ms } = await killed;
    console.log(`master ${victim} killed, replica ${promoted} serving after ${ms} ms`);
    for (let n = 0; n < 5; n++) await post(`after ${n}`);

    await waitFor('all 15 deliveries', () => receiver.at(path).length >= 15, 60_000);
    const perMessage = requestsPerMessage(receiver, path);
    expect(perMessage.size).toBe(15);
    expect([...perMessage.values()].every((count) => count === 1)).toBe(true);

    // both subscribers were on the dead node: they moved on to another seed and forgot their caches
    await bothLive();
    expect(await revokeOnAThenRefusedByB()).toBeLessThanOrEqual(PROPAGATION_MS);
  });
});
