import { createTestApp, TestApp } from '../utils/app';
import { createCommunity, unique } from '../utils/factories';
import { Receiver, startReceiver } from '../utils/webhook-receiver';
import { createEndpoint, DELIVERY_TEST_ENV, waitFor } from '../utils/worker';
import { raiseBurst, requestsPerMessage } from './delivery-helpers';
import { ChildWorker, killStillRunning, spawnWorker } from './processes';

jest.setTimeout(120_000);

/** A sweep every 100 ms re-adds every due attempt again and again: the claim keeps each to one request. */
const ENV = {
  ...DELIVERY_TEST_ENV,
  WEBHOOK_SWEEP_INTERVAL: '100ms',
  WORKER_CONCURRENCY: '10',
  // every event's first attempt fails on purpose: that must not disable the endpoint
  WEBHOOK_AUTO_DISABLE_MIN_FAILURES: '1000',
};

describe('two worker processes and the sweep', () => {
  let api: TestApp;
  let receiver: Receiver;
  const workers: ChildWorker[] = [];

  beforeAll(async () => {
    api = await createTestApp(ENV);
    receiver = await startReceiver();
  });

  afterAll(async () => {
    killStillRunning(workers);
    await api?.close();
    await receiver?.close();
  });

  it('never send one attempt twice', async () => {
    const community = await createCommunity(api.app);
    const path = `/${unique('two')}`;
    const endpoint = await createEndpoint(api, community.id, {
      url: receiver.url + path,
      events: ['tweet.created'],
    });
    // each event's first request fails: attempt 2 goes through the retry path as well
    const seen = new Set<string>();
    receiver.respond(path, async (request) => {
      const id = String(request.headers['webhook-id']);
      await new Promise((resolve) => setTimeout(resolve, 10));
      if (seen.has(id)) return { status: 200 };
      seen.add(id);
      return { status: 500 };
    });
    const events = await raiseBurst(api, community.id, 200);
    workers.push(spawnWorker(ENV), spawnWorker(ENV));

    await waitFor(
      'every event to succeed on its second attempt',
      async () =>
        (await api.prisma.webhookDelivery.count({
          where: { endpointId: endpoint.id, status: 'SUCCESS' },
        })) === 200,
      60_000,
    );
    const counts = requestsPerMessage(receiver, path);
    expect([...counts.keys()].sort()).toEqual([...events].sort());
    expect([...counts.values()].every((n) => n === 2)).toBe(true);
    const rows = await api.prisma.webhookDelivery.findMany({ where: { endpointId: endpoint.id } });
    expect(rows).toHaveLength(400);
    expect(rows.filter((r) => r.attempt === 1).every((r) => r.status === 'FAILED')).toBe(true);
    for (const worker of workers) {
      worker.process.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
    }
  });
});
