import { createTestApp, TestApp } from '../utils/app';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { Receiver, startReceiver } from '../utils/webhook-receiver';
import { createEndpoint, DELIVERY_TEST_ENV, startTestWorker, TestWorker, waitFor } from '../utils/worker';
import { RedisServer, sparePort, startRedis } from './processes';
import { createRedisClient } from '../../src/redis/redis-client';
import { DeliveryProcessor } from '../../src/modules/webhooks/worker/delivery.processor';

jest.setTimeout(120_000);

describe('Redis down', () => {
  let redis: RedisServer;
  let api: TestApp;
  let worker: TestWorker;
  let receiver: Receiver;

  beforeAll(async () => {
    redis = await startRedis(await sparePort());
    const env = { ...DELIVERY_TEST_ENV, REDIS_URL: redis.url };
    api = await createTestApp(env);
    worker = await startTestWorker(env);
    receiver = await startReceiver();
  });

  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await receiver?.close();
    await redis?.stop();
  });

  it('lets writes succeed and delivers their events once Redis is back', async () => {
    const { community, token } = await memberWithToken(api.app, { plan: 'PRO', role: 'OWNER' });
    const path = `/${unique('outage')}`;
    await createEndpoint(api, community.id, { url: receiver.url + path, events: ['tweet.created'] });
    const tweetIdsReceived = () =>
      new Set(
        receiver
          .at(path)
          .map((r) => (JSON.parse(r.body) as { data: { tweet: { id: string } } }).data.tweet.id),
      );
    const post = async (content: string) => {
      const res = await call(api.app, 'POST', '/api/sdk/tweets', { token, body: { content } });
      expect(res.status).toBe(201);
      return (res.body.data as { id: string }).id;
    };

    const before = await post('before the outage');
    await waitFor('the delivery before the outage', () => tweetIdsReceived().has(before));

    await redis.stop();
    const during: string[] = [];
    for (let n = 0; n < 5; n++) during.push(await post(`during the outage ${n}`));
    const stored = await api.prisma.outboxEvent.count({
      where: { communityId: community.id, eventType: 'tweet.created' },
    });
    expect(stored).toBe(6);

    redis = await startRedis(redis.port);
    await waitFor(
      'every event written during the outage',
      () => during.every((id) => tweetIdsReceived().has(id)),
      60_000,
    );
    expect(
      await api.prisma.outboxEvent.count({ where: { communityId: community.id, relayedAt: null } }),
    ).toBe(0);
  });
});

describe('Shutting down while Redis is down', () => {
  it('stops a worker and an API within the drain window, though their connections are still reconnecting', async () => {
    const redis = await startRedis(await sparePort());
    const env = { ...DELIVERY_TEST_ENV, REDIS_URL: redis.url, WORKER_SHUTDOWN_TIMEOUT: '1s' };
    const api = await createTestApp(env);
    const worker = await startTestWorker(env);
    try {
      const { community, token } = await memberWithToken(api.app, { plan: 'PRO', role: 'OWNER' });
      await createEndpoint(api, community.id, { url: 'http://127.0.0.1:9/never', events: ['tweet.created'] });
      await redis.stop();
      // a write while Redis is away: its relay and its delivery wait on Redis as the process is told to stop
      expect((await call(api.app, 'POST', '/api/sdk/tweets', { token, body: { content: 'x' } })).status).toBe(
        201,
      );
      await waitFor('the worker to see Redis gone', () =>
        worker.context.get(DeliveryProcessor).worker.isRunning()
          ? redisStatuses(worker).some((status) => status === 'reconnecting')
          : false,
      );

      // ioredis emits no 'end' for a connection closed while it waits to reconnect, and BullMQ's close
      // waits for that 'end': without a bound of its own, stop() would never return
      const started = Date.now();
      await worker.stop();
      await api.close();
      expect(Date.now() - started).toBeLessThan(worker.config.workerShutdownTimeoutMs + 5_000);
    } finally {
      await worker.stop();
      await api.close().catch(() => undefined);
    }
  });
});

describe('A Redis client closed while it waits to reconnect', () => {
  it('ends: it emits end and fails the commands it held', async () => {
    const redis = await startRedis(await sparePort());
    const client = createRedisClient(
      { REDIS_URL: redis.url, REDIS_KEY_PREFIX: unique('end'), redisClusterNodes: undefined },
      'endpoint-slots',
    );
    client.on('error', () => undefined);
    await client.ping();
    await redis.stop();
    await waitFor('the client to wait for its next reconnect', () => client.status === 'reconnecting');
    const held = client.get('key').then(
      () => 'answered',
      (err: Error) => err.message,
    );
    const ended = new Promise<void>((resolve) => client.once('end', resolve));
    client.disconnect();
    await ended;
    expect(client.status).toBe('end');
    expect(await held).toBe('Connection is closed.');
  });
});

/** The worker's own Redis connections' states (ioredis `status`). */
function redisStatuses(worker: TestWorker): string[] {
  const bullmq = worker.context.get(DeliveryProcessor).worker;
  return [(bullmq.opts.connection as { status: string }).status];
}
