import Redis from 'ioredis';
import { createTestApp, TestApp } from '../utils/app';
import { createCommunity, unique } from '../utils/factories';
import { Receiver, startReceiver } from '../utils/webhook-receiver';
import { createEndpoint, DELIVERY_TEST_ENV, waitFor } from '../utils/worker';
import { raiseBurst, requestsPerMessage } from './delivery-helpers';
import { ChildWorker, killStillRunning, RedisServer, sparePort, spawnWorker, startRedis } from './processes';

jest.setTimeout(120_000);

/**
 * Redis is a cache of the delivery schedule, PostgreSQL its owner (docs/product-decisions.md#5-webhooks):
 * emptying every key of the test's own redis-server (FLUSHALL, as an empty replica promoted would) loses no
 * delivery and sends no attempt twice. The sweep finds what Redis forgot within WEBHOOK_SWEEP_INTERVAL.
 */
describe('Redis emptied (FLUSHALL)', () => {
  let redis: RedisServer;
  let api: TestApp;
  let receiver: Receiver;
  let env: Record<string, string>;
  const workers: ChildWorker[] = [];

  beforeAll(async () => {
    redis = await startRedis(await sparePort());
    env = {
      ...DELIVERY_TEST_ENV,
      REDIS_URL: redis.url,
      WEBHOOK_SWEEP_INTERVAL: '1s',
      // retries wait long enough to be flushed while waiting
      WEBHOOK_RETRY_SCHEDULE: '3s',
      // failing first attempts must not disable the endpoint
      WEBHOOK_AUTO_DISABLE_MIN_FAILURES: '1000',
    };
    api = await createTestApp(env);
    receiver = await startReceiver();
  });

  afterAll(async () => {
    killStillRunning(workers);
    await api?.close();
    await receiver?.close();
    await redis?.stop();
  });

  async function flushAll() {
    const client = new Redis(redis.url);
    await client.flushall();
    client.disconnect();
  }

  it('while retries are pending: every retry is still sent, once', async () => {
    const community = await createCommunity(api.app);
    const path = `/${unique('flush-retries')}`;
    const endpoint = await createEndpoint(api, community.id, {
      url: receiver.url + path,
      events: ['tweet.created'],
    });
    // the first request of each event fails, so each event waits for its retry
    const seen = new Set<string>();
    receiver.respond(path, (request) => {
      const id = String(request.headers['webhook-id']);
      if (seen.has(id)) return { status: 200 };
      seen.add(id);
      return { status: 500 };
    });
    const worker = spawnWorker(env);
    workers.push(worker);
    const events = await raiseBurst(api, community.id, 20);
    await waitFor(
      'every first attempt to fail and its retry to wait',
      async () =>
        (await api.prisma.webhookDelivery.count({
          where: { endpointId: endpoint.id, attempt: 2, status: 'PENDING', startedAt: null },
        })) === 20,
      30_000,
    );

    await flushAll();

    await waitFor(
      'every retry to succeed',
      async () =>
        (await api.prisma.webhookDelivery.count({
          where: { endpointId: endpoint.id, status: 'SUCCESS' },
        })) === 20,
      30_000,
    );
    const counts = requestsPerMessage(receiver, path);
    expect([...counts.keys()].sort()).toEqual([...events].sort());
    expect([...counts.values()].every((n) => n === 2)).toBe(true);
    const rows = await api.prisma.webhookDelivery.findMany({ where: { endpointId: endpoint.id } });
    expect(rows).toHaveLength(40);
    worker.process.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  });

  it('while a burst is being relayed and sent: every event arrives, each once', async () => {
    const community = await createCommunity(api.app);
    const path = `/${unique('flush-burst')}`;
    const endpoint = await createEndpoint(api, community.id, {
      url: receiver.url + path,
      events: ['tweet.created'],
    });
    // slow enough that most of the burst is still queued when Redis is emptied
    receiver.respond(path, () => new Promise((resolve) => setTimeout(() => resolve({ status: 200 }), 20)));
    const events = await raiseBurst(api, community.id, 300);
    const worker = spawnWorker({ ...env, WORKER_CONCURRENCY: '10' });
    workers.push(worker);
    await waitFor('the burst to be under way', () => receiver.at(path).length >= 30, 30_000);

    await flushAll();
    expect(receiver.at(path).length).toBeLessThan(300);

    await waitFor(
      'every event to be delivered',
      async () =>
        (await api.prisma.webhookDelivery.count({
          where: { endpointId: endpoint.id, status: 'SUCCESS' },
        })) === 300,
      60_000,
    );
    const counts = requestsPerMessage(receiver, path);
    expect([...counts.keys()].sort()).toEqual([...events].sort());
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect(await api.prisma.webhookDelivery.count({ where: { endpointId: endpoint.id } })).toBe(300);
    worker.process.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  });
});
