import { createCommunity } from '../utils/factories';
import { endpointAtReceiver } from '../utils/delivery-stack';
import { failEachFirstRequest } from '../utils/webhook-receiver';
import { expectEachReceived, raiseBurst, successesReach, useWorkerProcessStack } from './delivery-helpers';

jest.setTimeout(120_000);

/** A sweep every 100 ms re-adds every due attempt again and again: the claim keeps each to one request. */
const ENV = {
  WEBHOOK_SWEEP_INTERVAL: '100ms',
  WORKER_CONCURRENCY: '10',
  // every event's first attempt fails on purpose: that must not disable the endpoint
  WEBHOOK_AUTO_DISABLE_MIN_FAILURES: '1000',
};

describe('two worker processes and the sweep', () => {
  const stack = useWorkerProcessStack({ env: ENV });

  it('never send one attempt twice', async () => {
    const { api, receiver } = stack;
    const community = await createCommunity(api.app);
    const endpoint = await endpointAtReceiver(stack, community.id, { name: 'two' });
    const { path } = endpoint;
    // each event's first request fails: attempt 2 goes through the retry path as well
    receiver.respond(path, failEachFirstRequest(10));
    const events = await raiseBurst(api, community.id, 200);
    const workers = [stack.spawnWorker(), stack.spawnWorker()];

    await successesReach(api, endpoint.id, 200, 'every event to succeed on its second attempt', 60_000);
    expectEachReceived(receiver, path, events, 2);
    const rows = await api.prisma.webhookDelivery.findMany({ where: { endpointId: endpoint.id } });
    expect(rows).toHaveLength(400);
    expect(rows.filter((r) => r.attempt === 1).every((r) => r.status === 'FAILED')).toBe(true);
    for (const worker of workers) {
      worker.process.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
    }
  });
});
