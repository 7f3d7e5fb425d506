import { createCommunity } from '../utils/factories';
import { endpointAtReceiver } from '../utils/delivery-stack';
import { failEachFirstRequest } from '../utils/webhook-receiver';
import { waitFor } from '../utils/worker';
import { expectEachReceived, flushAll, raiseBurst, useWorkerProcessStack } from './delivery-helpers';

jest.setTimeout(120_000);

const OLD_MESSAGES = 3_000;
const HELD_MESSAGES = 20;

/**
 * The delivery log's retention (docs/api.md#retention-of-the-delivery-log) deleting old attempts of an endpoint
 * while two workers deliver a burst to it, retry, and Redis is emptied under them: no delivery is lost or sent
 * twice, the old messages go, and a message with a PENDING attempt stays whole.
 */
describe('delivery log retention beside two workers, the sweep and FLUSHALL', () => {
  const stack = useWorkerProcessStack({
    ownRedis: true,
    env: {
      WEBHOOK_SWEEP_INTERVAL: '200ms',
      WEBHOOK_LOG_PRUNE_INTERVAL: '50ms',
      WEBHOOK_RETRY_SCHEDULE: '1s',
      WORKER_CONCURRENCY: '10',
      WEBHOOK_AUTO_DISABLE_MIN_FAILURES: '1000',
    },
  });

  it('loses and doubles nothing while it deletes the old messages and keeps the held ones', async () => {
    const { api, receiver } = stack;
    const community = await createCommunity(api.app);
    const endpoint = await endpointAtReceiver(stack, community.id, { name: 'retention' });
    const { path } = endpoint;
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
    receiver.respond(path, failEachFirstRequest(5));
    const events = await raiseBurst(api, community.id, 200);
    const workers = [stack.spawnWorker(), stack.spawnWorker()];
    await waitFor('the burst under way', () => receiver.at(path).length >= 50, 30_000);
    await flushAll(stack.redis.url);

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
    expectEachReceived(receiver, path, events, 2);
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
