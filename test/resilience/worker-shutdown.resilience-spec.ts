import { OutboxService } from '../../src/modules/events/outbox.service';
import { syntheticData } from '../utils/synthetic-event';
import { createTestApp, TestApp } from '../utils/app';
import { createCommunity, unique } from '../utils/factories';
import { Receiver, startReceiver } from '../utils/webhook-receiver';
import { createEndpoint, DELIVERY_TEST_ENV, waitFor } from '../utils/worker';
import { ChildWorker, spawnWorker } from './processes';

jest.setTimeout(60_000);

// info level: the test watches for the worker's "SIGTERM received" line
const ENV = {
  ...DELIVERY_TEST_ENV,
  WORKER_CONCURRENCY: '10',
  WORKER_SHUTDOWN_TIMEOUT: '10s',
  LOG_LEVEL: 'info',
};

describe('a worker process told to stop (SIGTERM)', () => {
  let api: TestApp;
  let receiver: Receiver;
  let worker: ChildWorker | undefined;

  beforeAll(async () => {
    api = await createTestApp(ENV);
    receiver = await startReceiver();
  });

  afterAll(async () => {
    if (worker?.process.exitCode === null) worker.process.kill('SIGKILL');
    await api?.close();
    await receiver?.close();
  });

  it('finishes the deliveries in flight, records them, and exits 0', async () => {
    const community = await createCommunity(api.app);
    const path = `/${unique('drain')}`;
    const endpoint = await createEndpoint(api, community.id, {
      url: receiver.url + path,
      events: ['tweet.created'],
    });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    // every request is held until the worker has been told to stop
    receiver.respond(path, async () => {
      await held;
      return { status: 200 };
    });
    await api.prisma.$transaction((tx) =>
      Promise.all(
        [1, 2, 3].map((n) =>
          api.app.get(OutboxService).record(tx, community.id, 'tweet.created', syntheticData({ n })),
        ),
      ),
    );

    worker = spawnWorker(ENV);
    await waitFor('three deliveries in flight', () => receiver.at(path).length === 3, 30_000);
    worker.process.kill('SIGTERM');
    // still running: it waits for the held deliveries instead of dropping them
    await waitFor('the stop to be under way', () => worker!.output().includes('SIGTERM received'), 10_000);
    expect(worker.process.exitCode).toBeNull();
    release();

    expect(await worker.exited).toBe(0);
    const rows = await api.prisma.webhookDelivery.findMany({ where: { endpointId: endpoint.id } });
    expect(rows.map((r) => r.status)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS']);
    expect(receiver.at(path)).toHaveLength(3);
  });
});
