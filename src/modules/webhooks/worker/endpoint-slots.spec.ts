import type { Job } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../../../config/app-config';
import type { DeliveryJobData } from '../core/delivery-job';
import type { DeliveryQueue } from '../core/delivery-queue.service';
import { EndpointSlots } from './endpoint-slots';

/**
 * Real Redis (the run's key prefix). A worker that holds every slot of an endpoint already knows
 * that Redis would answer "full": a job that may wait here for the next release (README.md in this
 * directory, "Fairness between endpoints") waits without asking.
 */
describe('EndpointSlots, an endpoint whose every slot this worker holds', () => {
  const CAP = 2;
  const config = loadConfig({ ...process.env, WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: String(CAP) }).config;
  // the queue is only used to wake a parked job, and none parks here
  const slots = new EndpointSlots(config, {} as DeliveryQueue);
  /** Its private acquire: one Redis script call each. */
  const withAcquire = slots as unknown as { acquire: (...args: unknown[]) => Promise<unknown> };

  afterAll(() => slots.onApplicationShutdown());

  // The clock EndpointSlots reads and its timers move only when a test moves them: an endpoint's pace, its
  // last progress and the LOCAL_WAIT_MS after which a waiter parks then depend on nothing the machine's
  // load can stretch. Redis's answers and the turns of the event loop stay real.
  let now = 1_000;
  beforeEach(() => {
    jest.useFakeTimers({
      doNotFake: [
        'nextTick',
        'setImmediate',
        'clearImmediate',
        'queueMicrotask',
        'Date',
        'hrtime',
        'performance',
      ],
    });
    jest.spyOn(performance, 'now').mockImplementation(() => now);
  });
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  const jobOf = (endpointId: string, n: number) =>
    ({ id: `job-${n}`, data: { endpointId } }) as unknown as Job<DeliveryJobData>;

  /** Lets every callback already due run (Redis answers, promise chains), `turns` times over. */
  const settle = async (turns = 20) => {
    for (let n = 0; n < turns; n++) await new Promise((resolve) => setImmediate(resolve));
  };
  /** Turns the event loop until `done()` (Redis answering, on the wall clock: Date is not faked), or throws. */
  const until = async (what: string, done: () => boolean) => {
    for (const giveUpAt = Date.now() + 10_000; !done(); await settle(1))
      if (Date.now() > giveUpAt) throw new Error(`${what} did not happen`);
  };

  it('waits for its next release without a round trip to Redis, and never runs past the cap', async () => {
    const endpointId = randomUUID();
    const acquires = jest.spyOn(withAcquire, 'acquire');
    const holding: Array<() => void> = [];
    const holders = Array.from({ length: CAP }, (_, n) =>
      slots.run(jobOf(endpointId, n), undefined, () => new Promise<void>((done) => holding.push(done))),
    );
    await until('the holders got their slots', () => holding.length === CAP);
    expect(holding).toHaveLength(CAP);
    expect(acquires).toHaveBeenCalledTimes(CAP);

    let ran = false;
    const waiter = slots.run(jobOf(endpointId, CAP), undefined, async () => {
      ran = true;
    });
    await settle();
    // the cap holds: it waits, and it asked Redis nothing
    expect(ran).toBe(false);
    expect(acquires).toHaveBeenCalledTimes(CAP);

    // the first holder's release hands its lease over here
    holding[0]();
    await waiter;
    expect(ran).toBe(true);
    expect(acquires).toHaveBeenCalledTimes(CAP);

    holding[1]();
    await Promise.all(holders);
  });

  it("keeps the endpoint's pace when it lets go of every slot, so the next burst waits here instead of parking", async () => {
    const endpointId = randomUUID();
    const parked: string[] = [];
    /** A job that records a park (BullMQ's moveToDelayed) instead of making one. */
    const parkableJob = (n: number) =>
      ({
        id: `job-${n}`,
        data: { endpointId },
        moveToDelayed: async () => void parked.push(`job-${n}`),
      }) as unknown as Job<DeliveryJobData>;
    /** Starts `count` jobs that hold their slot until released; resolves their releases once all hold one. */
    const burst = async (first: number, count: number) => {
      const releases: Array<() => void> = [];
      const runs = Array.from({ length: count }, (_, n) =>
        slots.run(parkableJob(first + n), undefined, () => new Promise<void>((done) => releases.push(done))),
      );
      await until('the burst got its slots', () => releases.length === Math.min(count, CAP));
      return { releases, runs };
    };

    // a first burst: its two releases, a millisecond apart, measure a fast pace; then no slot is held
    // here and the endpoint's state is dropped
    const first = await burst(0, CAP);
    first.releases[0]();
    await settle();
    now += 1;
    first.releases[1]();
    await Promise.all(first.runs);

    // the next burst: CAP jobs hold the slots, CAP + 1 more wait (one more than an unknown pace lets wait)
    const next = await burst(CAP, 2 * CAP + 1);
    await settle();
    expect(parked).toEqual([]);
    // each release hands its lease to the next job waiting here, until all have run
    for (let n = 0; n < 2 * CAP + 1; n++) {
      await until('a hand-over', () => next.releases.length > n);
      next.releases[n]();
    }
    await Promise.all(next.runs);
    expect(parked).toEqual([]);
  });
});
