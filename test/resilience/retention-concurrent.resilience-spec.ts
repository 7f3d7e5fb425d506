import Redis from 'ioredis';
import { createTestApp, TestApp } from '../utils/app';
import { createCommunity, unique } from '../utils/factories';
import { Receiver, startReceiver } from '../utils/webhook-receiver';
import { createEndpoint, DELIVERY_TEST_ENV, waitFor } from '../utils/worker';
import { raiseBurst, requestsPerMessage } from './delivery-helpers';
import { ChildWorker, killStillRunning, RedisServer, sparePort, spawnWorker, startRedis } from './processes';

jest.setTimeout(120_000);

const OLD_MESSAGES = 3_000;
const HELD_MESSAGES = 20;

/**
 * The delivery log's retention (docs/api.md#retention-of-the-delivery-log) deleting old attempts of an endpoint
 * while two workers deliver a burst to it, retry, and Redis is emptied under them: no delivery is lost or sent
 * twice, the old messages go, and a message with a PENDING attempt stays whole.
 */
describe('delivery log retention beside two workers, the sweep and FLUSHALL', () => {
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
      WEBHOOK_SWEEP_INTERVAL: '200ms',
      WEBHOOK_LOG_PRUNE_INTERVAL: '50ms',
      WEBHOOK_RETRY_SCHEDULE: '1s',
      WORKER_CONCURRENCY: '10',
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

  it('loses and doubles nothing while it deletes the old messages and keeps the held ones', async () => {
    const community = await createCommunity(api.app);
    const path = `/${unique('retention')}`;
    const endpoint = await createEndpoint(api, community.id, {
      url: receiver.url + path,
      events: ['tweet.created'],
    });
    // 100 days old and closed (to delete), and 100 days old with a PENDING retry due tomorrow (to keep)
    await api.prisma.$executeRaw`
      INSERT INTO webhook_deliveries (id, community_id, endpoint_id, message_id, event_type, attempt, status,
                                      next_attempt_at, created_at, updated_at)
      SELECT gen_random_uuid(), ${community.id}::uuid, ${endpoint.id}::uuid, 'msg_old' || n, 'tweet.created', 1,
             'SUCCESS', NULL, now() - interval '100 days', now()
        FROM generate_series(1, ${OLD_MESSAGES}) n
      UNION ALL
      SELECT gen_random_uuid(), ${community.id}::uuid, ${endpoint.id}::uuid, 'msg_held' || n, 'tweet.created', a,
             CASE a WHEN 1 THEN 'FAILED' ELSE 'PENDING' END::"DeliveryStatus",
             CASE a WHEN 1 THEN NULL ELSE now() + interval '1 day' END, now() - interval '100 days', now()
        FROM generate_series(1, ${HELD_MESSAGES}) n, generate_series(1, 2) a`;
    const seen = new Set<string>();
    receiver.respond(path, async (request) => {
      const id = String(request.headers['webhook-id']);
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (seen.has(id)) return { status: 200 };
      seen.add(id);
      return { status: 500 };
    });
    const events = await raiseBurst(api, community.id, 200);
    workers.push(spawnWorker(env), spawnWorker(env));
    await waitFor('the burst under way', () => receiver.at(path).length >= 50, 30_000);
    const client = new Redis(redis.url);
    await client.flushall();
    client.disconnect();

    await waitFor(
      'every event to succeed on its second attempt',
      async () =>
        (await api.prisma.webhookDelivery.count({
          where: { endpointId: endpoint.id, status: 'SUCCESS', messageId: { in: events } },
        })) === 200,
      60_000,
    );
    await waitFor(
      'the old messages to be deleted',
      async () =>
        (await api.prisma.webhookDelivery.count({
          where: { endpointId: endpoint.id, messageId: { startsWith: 'msg_old' } },
        })) === 0,
      30_000,
    );
    const counts = requestsPerMessage(receiver, path);
    expect([...counts.keys()].sort()).toEqual([...events].sort());
    expect([...counts.values()].every((n) => n === 2)).toBe(true);
    expect(
      await api.prisma.webhookDelivery.count({
        where: { endpointId: endpoint.id, messageId: { startsWith: 'msg_held' } },
      }),
    ).toBe(HELD_MESSAGES * 2);
    expect(
      await api.prisma.webhookDelivery.count({
        where: { endpointId: endpoint.id, messageId: { in: events } },
      }),
    ).toBe(400);
    for (const worker of workers) {
      worker.process.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
    }
  });
});
