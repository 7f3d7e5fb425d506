import { loadConfig } from '../../../config/app-config';
import type { DeliveryJobData } from '../core/delivery-job';
import type { DeliveryQueue } from '../core/delivery-queue.service';
import type { DeliveryProcessor } from './delivery.processor';
import type { AttemptClaim } from './attempt-claim';
import { LocalDeliveries, relayedAttemptKey } from './local-deliveries';

/** The relayed attempts a worker runs itself, and those it leaves to the queue. */
describe('LocalDeliveries', () => {
  const job = (n: number) => ({ messageId: `m${n}`, endpointId: 'e', attempt: 1 }) as DeliveryJobData;

  function setUp(concurrency: number, run: (job: DeliveryJobData, claim?: AttemptClaim) => Promise<boolean>) {
    const config = loadConfig({ ...process.env, WORKER_CONCURRENCY: String(concurrency) }).config;
    const queued: DeliveryJobData[] = [];
    const queue = { addAll: async (jobs: DeliveryJobData[]) => void queued.push(...jobs) };
    const processor = { runIfSlotFree: run };
    const local = new LocalDeliveries(
      processor as unknown as DeliveryProcessor,
      queue as unknown as DeliveryQueue,
      config,
    );
    return { local, queued };
  }

  it('runs up to a fifth of WORKER_CONCURRENCY at once and returns the rest for the queue', async () => {
    const started: string[] = [];
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const { local } = setUp(10, async (j) => {
      started.push(j.messageId);
      await finished;
      return true;
    });

    const left = local.offer([job(1), job(2), job(3)]);
    expect(started).toEqual(['m1', 'm2']);
    expect(left.map((j) => j.messageId)).toEqual(['m3']);
    // no room while those two run
    expect(local.offer([job(4)]).map((j) => j.messageId)).toEqual(['m4']);
    finish();
    await local.stop(1_000);
  });

  it('starts the attempts the relay claimed for it first, with their claims, whatever the room', async () => {
    const started: [string, AttemptClaim | undefined][] = [];
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const { local } = setUp(10, async (j, claim) => {
      started.push([j.messageId, claim]);
      await finished;
      return true;
    });
    const claim = { deliveryId: 'd3' } as AttemptClaim;
    expect(local.room()).toBe(2);

    const left = local.offer([job(1), job(2), job(3)], new Map([[relayedAttemptKey('m3', 'e'), claim]]));
    // the claimed one first; the room left after it takes one more
    expect(started).toEqual([
      ['m3', claim],
      ['m1', undefined],
    ]);
    expect(left.map((j) => j.messageId)).toEqual(['m2']);
    expect(local.room()).toBe(0);
    finish();
    await local.stop(1_000);
  });

  it('queues an attempt whose endpoint had no free slot, or whose run failed', async () => {
    const { local, queued } = setUp(10, async (j) => {
      if (j.messageId === 'm2') throw new Error('database down');
      return false;
    });
    expect(local.offer([job(1), job(2)])).toEqual([]);
    await local.stop(1_000);
    expect(queued.map((j) => j.messageId).sort()).toEqual(['m1', 'm2']);
  });

  it('takes nothing once stopped, and the stop waits for the runs in flight', async () => {
    let done = false;
    const { local } = setUp(10, async () => {
      await new Promise((resolve) => setImmediate(resolve));
      done = true;
      return true;
    });
    local.offer([job(1)]);
    await local.stop(1_000);
    expect(done).toBe(true);
    expect(local.offer([job(2)]).map((j) => j.messageId)).toEqual(['m2']);
  });
});
