import { OutboxService } from '../../src/modules/events/outbox.service';
import { syntheticData } from '../utils/synthetic-event';
import { createCommunity } from '../utils/factories';
import { endpointAtReceiver } from '../utils/delivery-stack';
import { waitFor } from '../utils/worker';
import { useWorkerProcessStack } from './delivery-helpers';

jest.setTimeout(60_000);

// info level: the test watches for the worker's "SIGTERM received" line
const ENV = {
  WORKER_CONCURRENCY: '10',
  WORKER_SHUTDOWN_TIMEOUT: '10s',
  LOG_LEVEL: 'info',
};

describe('a worker process told to stop (SIGTERM)', () => {
  const stack = useWorkerProcessStack({ env: ENV });

  it('finishes the deliveries in flight, records them, and exits 0', async () => {
    const { api, receiver } = stack;
    const community = await createCommunity(api.app);
    const endpoint = await endpointAtReceiver(stack, community.id, { name: 'drain' });
    const { path } = endpoint;
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

    const worker = stack.spawnWorker();
    await waitFor('three deliveries in flight', () => receiver.at(path).length === 3, 30_000);
    worker.process.kill('SIGTERM');
    // still running: it waits for the held deliveries instead of dropping them
    await waitFor('the stop to be under way', () => worker.output().includes('SIGTERM received'), 10_000);
    expect(worker.process.exitCode).toBeNull();
    release();

    expect(await worker.exited).toBe(0);
    const rows = await api.prisma.webhookDelivery.findMany({ where: { endpointId: endpoint.id } });
    expect(rows.map((r) => r.status)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS']);
    expect(receiver.at(path)).toHaveLength(3);
  });
});
