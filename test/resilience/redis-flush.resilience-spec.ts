import { createCommunity } from '../utils/factories';
import { endpointAtReceiver } from '../utils/delivery-stack';
import { waitFor } from '../utils/worker';
import { failEachFirstRequest } from '../utils/webhook-receiver';
import {
  expectEachReceived,
  flushAll,
  raiseBurst,
  successesReach,
  useWorkerProcessStack,
} from './delivery-helpers';

jest.setTimeout(120_000);

/**
 * Redis is a cache of the delivery schedule, PostgreSQL its owner (docs/product-decisions.md#5-webhooks):
 * emptying every key of the test's own redis-server (FLUSHALL, as an empty replica promoted would) loses no
 * delivery and sends no attempt twice. The sweep finds what Redis forgot within WEBHOOK_SWEEP_INTERVAL.
 */
describe('Redis emptied (FLUSHALL)', () => {
  const stack = useWorkerProcessStack({
    ownRedis: true,
    env: {
      WEBHOOK_SWEEP_INTERVAL: '1s',
      // retries wait long enough to be flushed while waiting
      WEBHOOK_RETRY_SCHEDULE: '3s',
      // failing first attempts must not disable the endpoint
      WEBHOOK_AUTO_DISABLE_MIN_FAILURES: '1000',
    },
  });

  it('while retries are pending: every retry is still sent, once', async () => {
    const { api, receiver } = stack;
    const community = await createCommunity(api.app);
    const endpoint = await endpointAtReceiver(stack, community.id, { name: 'flush-retries' });
    const { path } = endpoint;
    // the first request of each event fails, so each event waits for its retry
    receiver.respond(path, failEachFirstRequest());
    const worker = stack.spawnWorker();
    const events = await raiseBurst(api, community.id, 20);
    await waitFor(
      'every first attempt to fail and its retry to wait',
      async () =>
        (await api.prisma.webhookDelivery.count({
          where: { endpointId: endpoint.id, attempt: 2, status: 'PENDING', startedAt: null },
        })) === 20,
      30_000,
    );

    await flushAll(stack.redis.url);

    await successesReach(api, endpoint.id, 20, 'every retry to succeed', 30_000);
    expectEachReceived(receiver, path, events, 2);
    const rows = await api.prisma.webhookDelivery.findMany({ where: { endpointId: endpoint.id } });
    expect(rows).toHaveLength(40);
    worker.process.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  });

  it('while a burst is being relayed and sent: every event arrives, each once', async () => {
    const { api, receiver } = stack;
    const community = await createCommunity(api.app);
    const endpoint = await endpointAtReceiver(stack, community.id, { name: 'flush-burst' });
    const { path } = endpoint;
    // slow enough that most of the burst is still queued when Redis is emptied
    receiver.respond(path, () => new Promise((resolve) => setTimeout(() => resolve({ status: 200 }), 20)));
    const events = await raiseBurst(api, community.id, 300);
    const worker = stack.spawnWorker({ WORKER_CONCURRENCY: '10' });
    await waitFor('the burst to be under way', () => receiver.at(path).length >= 30, 30_000);

    await flushAll(stack.redis.url);
    expect(receiver.at(path).length).toBeLessThan(300);

    await successesReach(api, endpoint.id, 300, 'every event to be delivered', 60_000);
    expectEachReceived(receiver, path, events, 1);
    expect(await api.prisma.webhookDelivery.count({ where: { endpointId: endpoint.id } })).toBe(300);
    worker.process.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  });
});
