import { OUTCOME_UNKNOWN } from '../../src/modules/webhooks/worker/delivery-sweep.store';
import { createCommunity } from '../utils/factories';
import { endpointAtReceiver } from '../utils/delivery-stack';
import { waitFor } from '../utils/worker';
import { raiseBurst, requestsPerMessage, useWorkerProcessStack } from './delivery-helpers';

jest.setTimeout(120_000);

/** A dead worker's jobs are taken over within seconds instead of the production 30 s. */
const ENV = {
  WORKER_STALLED_INTERVAL: '2s',
  WORKER_CONCURRENCY: '20',
  // the attempts the dead worker held count as failures; with the test's 3-failure rule they would
  // disable the endpoint before their retries are sent
  WEBHOOK_AUTO_DISABLE_MIN_FAILURES: '1000',
};
const EVENTS = 400;

describe('a worker process that dies', () => {
  const stack = useWorkerProcessStack({ env: ENV });

  it('killed with SIGKILL mid-burst and started again, delivers every event and logs every request', async () => {
    const { api, receiver } = stack;
    const community = await createCommunity(api.app);
    const endpoint = await endpointAtReceiver(stack, community.id, { name: 'crash' });
    const { path } = endpoint;
    // a receiver that takes a little while, so the burst is still in flight when the worker dies
    receiver.respond(path, () => new Promise((resolve) => setTimeout(() => resolve({ status: 200 }), 25)));
    const events = await raiseBurst(api, community.id, EVENTS);

    const first = stack.spawnWorker();
    await waitFor('the burst to be under way', () => receiver.at(path).length >= 50, 30_000);
    first.process.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    const deliveredBeforeKill = new Set(receiver.at(path).map((r) => r.headers['webhook-id'])).size;
    expect(deliveredBeforeKill).toBeLessThan(EVENTS);

    const second = stack.spawnWorker();
    const expected = new Set(events);
    await waitFor(
      'every event to arrive after the restart',
      () => expected.size === new Set(receiver.at(path).map((r) => r.headers['webhook-id'])).size,
      60_000,
      100,
    );
    const received = new Set(receiver.at(path).map((r) => String(r.headers['webhook-id'])));
    expect([...expected].every((id) => received.has(id))).toBe(true);
    const succeeded = await waitFor('every event to be logged as SUCCESS', async () => {
      const rows = await api.prisma.webhookDelivery.findMany({
        where: { endpointId: endpoint.id, status: 'SUCCESS' },
        select: { messageId: true },
        distinct: ['messageId'],
      });
      return rows.length === EVENTS && rows;
    });
    expect(succeeded).toHaveLength(EVENTS);
    expect(
      await api.prisma.outboxEvent.count({ where: { communityId: community.id, relayedAt: null } }),
    ).toBe(0);

    // one record per request: the attempts the dead worker had claimed are closed as unknown
    // outcomes (their request may have arrived) and each was retried as the next attempt number
    const rows = await waitFor('no attempt left PENDING', async () => {
      const all = await api.prisma.webhookDelivery.findMany({ where: { endpointId: endpoint.id } });
      return all.every((r) => r.status !== 'PENDING') && all;
    });
    const rowsPerMessage = new Map<string, typeof rows>();
    for (const row of rows)
      rowsPerMessage.set(row.messageId, [...(rowsPerMessage.get(row.messageId) ?? []), row]);
    for (const [messageId, requests] of requestsPerMessage(receiver, path)) {
      const attempts = (rowsPerMessage.get(messageId) ?? []).sort((a, b) => a.attempt - b.attempt);
      expect(attempts.length).toBeGreaterThanOrEqual(requests);
      expect(attempts.map((a) => a.attempt)).toEqual(attempts.map((_, i) => i + 1));
      expect(attempts.filter((a) => a.status === 'SUCCESS')).toHaveLength(1);
      expect(attempts[attempts.length - 1].status).toBe('SUCCESS');
      for (const failed of attempts.slice(0, -1))
        expect(failed).toMatchObject({ status: 'FAILED', error: OUTCOME_UNKNOWN });
    }
    expect(rows.some((r) => r.error === OUTCOME_UNKNOWN)).toBe(true);

    second.process.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });
});
