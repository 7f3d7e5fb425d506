import { Logger } from '@nestjs/common';
import { DelayedError, type Job } from 'bullmq';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { type AppConfig, loadConfig } from '../../../config/app-config';
import type { DeliveryJobData } from '../core/delivery-job';
import type { DeliveryQueue } from '../core/delivery-queue.service';
import { EndpointSlots } from './endpoint-slots';
import type { SlotsRedis } from './endpoint-slot-scripts';
import type { WorkerMetrics } from './worker-metrics';

/** Counts the lapsed leases EndpointSlots reports (its only use of the worker's metrics). */
function lapseCounter() {
  const counter = { lapsed: 0, slotLeaseLapsed: () => void counter.lapsed++ };
  return counter;
}

const asMetrics = (counter: ReturnType<typeof lapseCounter>) => counter as unknown as WorkerMetrics;

/**
 * Real Redis (the run's key prefix). A worker that holds every slot of an endpoint already knows
 * that Redis would answer "full": a job that may wait here for the next release (README.md in this
 * directory, "Fairness between endpoints") waits without asking.
 */
describe('EndpointSlots, an endpoint whose every slot this worker holds', () => {
  const CAP = 2;
  const config = loadConfig({ ...process.env, WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: String(CAP) }).config;
  // the queue is only used to wake a parked job, and none parks here
  const slots = new EndpointSlots(config, {} as DeliveryQueue, asMetrics(lapseCounter()));
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

/**
 * Real Redis. Leases are short and renewed (README.md in this directory, "Fairness between
 * endpoints"): one renewal round renews every lease this worker holds, one script per endpoint, and
 * a lease found gone is reported and never handed over, so the cap holds after it.
 */
describe('EndpointSlots, leases renewed while their requests run', () => {
  const CAP = 2;
  const config = loadConfig({
    ...process.env,
    WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: String(CAP),
    // long: no round of the timer runs in the tests that call one themselves
    WEBHOOK_SLOT_LEASE: '1h',
    WEBHOOK_SLOT_RENEW_INTERVAL: '30m',
  }).config;
  const redis = new Redis(config.REDIS_URL);
  const instances: EndpointSlots[] = [];
  // a lapse is logged on purpose
  beforeAll(() => Logger.overrideLogger(false));
  afterAll(async () => {
    await Promise.all(instances.map((slots) => slots.onApplicationShutdown()));
    await redis.quit();
    Logger.overrideLogger(['error', 'warn', 'log']);
  });

  /** A worker's EndpointSlots (the queue is never used: no job here is woken) and its lapse count. */
  function worker(workerConfig: AppConfig = config) {
    const lapses = lapseCounter();
    const slots = new EndpointSlots(workerConfig, {} as DeliveryQueue, asMetrics(lapses));
    instances.push(slots);
    const scripts = (slots as unknown as { redis: SlotsRedis }).redis;
    return { slots, lapses, renewals: jest.spyOn(scripts, 'cpSlotRenew') };
  }

  const leasesKey = (endpointId: string) =>
    `${config.REDIS_KEY_PREFIX}:endpoint-slots:{${endpointId}}:leases`;
  const redisNow = async () => {
    const [seconds, micros] = await redis.time();
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  };
  /** The endpoint's leases in Redis: id → expiry (Redis's clock, ms). */
  const leasesOf = async (endpointId: string) => {
    const flat = await redis.zrange(leasesKey(endpointId), 0, -1, 'WITHSCORES');
    const leases = new Map<string, number>();
    for (let i = 0; i < flat.length; i += 2) leases.set(flat[i], Number(flat[i + 1]));
    return leases;
  };
  const until = async (what: string, done: () => boolean | Promise<boolean>) => {
    for (const giveUpAt = Date.now() + 10_000; !(await done()); await new Promise((r) => setImmediate(r)))
      if (Date.now() > giveUpAt) throw new Error(`${what} did not happen`);
  };

  let jobs = 0;
  const parkedJobs: string[] = [];
  /** A job of `endpointId` that records a park (BullMQ's moveToDelayed) instead of making one. */
  const jobOf = (endpointId: string) => {
    const id = `job-${++jobs}`;
    return {
      id,
      data: { endpointId },
      moveToDelayed: async () => void parkedJobs.push(id),
    } as unknown as Job<DeliveryJobData>;
  };
  /** Starts a job that holds its slot until `release()`; resolves once it holds it. */
  async function hold(slots: EndpointSlots, endpointId: string) {
    let release!: () => void;
    let holding = false;
    const run = slots.run(jobOf(endpointId), undefined, () => {
      holding = true;
      return new Promise<void>((done) => (release = done));
    });
    await until('the job got its slot', () => holding);
    return { release: () => release(), run };
  }

  it('renews every lease it holds to a full lease from now, with one script per endpoint', async () => {
    const { slots, renewals } = worker();
    const [first, second] = [randomUUID(), randomUUID()];
    const holders = [await hold(slots, first), await hold(slots, first), await hold(slots, second)];
    // the leases have almost run out (as if their requests had run for nearly a lease)
    const soon = (await redisNow()) + 50;
    for (const endpointId of [first, second])
      for (const id of (await leasesOf(endpointId)).keys())
        await redis.zadd(leasesKey(endpointId), 'XX', soon, id);

    const before = await redisNow();
    await slots.renewLeases();
    const after = await redisNow();

    // one script per endpoint, carrying all of its leases (the auto-pipeline calls each command
    // again on its pipeline, which the spy sees too: distinct calls are counted)
    const scripts = new Map(renewals.mock.calls.map(([key, , ...ids]) => [key, [...ids].sort()]));
    expect(new Set(renewals.mock.calls.map((call) => JSON.stringify(call))).size).toBe(2);
    expect(scripts).toEqual(
      new Map([
        [leasesKey(first), [...(await leasesOf(first)).keys()].sort()],
        [leasesKey(second), [...(await leasesOf(second)).keys()]],
      ]),
    );
    const expiries = [...(await leasesOf(first)).values(), ...(await leasesOf(second)).values()];
    expect(expiries).toHaveLength(3);
    for (const expiry of expiries) {
      expect(expiry).toBeGreaterThanOrEqual(before + config.webhookSlotLeaseMs);
      expect(expiry).toBeLessThanOrEqual(after + config.webhookSlotLeaseMs);
    }
    for (const holder of holders) holder.release();
    await Promise.all(holders.map((holder) => holder.run));
    expect((await leasesOf(first)).size + (await leasesOf(second)).size).toBe(0);
  });

  afterEach(() => jest.restoreAllMocks());

  it('reports a lease found gone once, and hands it to no waiting job: the cap holds', async () => {
    // this process's clock stands still: the job below waits here for a release however slow the machine
    jest.spyOn(performance, 'now').mockReturnValue(1_000);
    const { slots, lapses } = worker();
    const other = worker().slots;
    const endpointId = randomUUID();
    const lapsing = await hold(slots, endpointId);
    // read while it is the only lease: two taken in the same millisecond tie in Redis's order
    const [lapsedId] = (await leasesOf(endpointId)).keys();
    const kept = await hold(slots, endpointId);
    // the lease expired unrenewed (a stall) and another worker took the slot it left
    await redis.zrem(leasesKey(endpointId), lapsedId);
    const taker = await hold(other, endpointId);

    await slots.renewLeases();
    expect(lapses.lapsed).toBe(1);
    await slots.renewLeases();
    expect(lapses.lapsed).toBe(1);
    expect(await leasesOf(endpointId)).toHaveProperty('size', CAP);

    // a job that waits here for a release (this worker holds both slots as it sees them)
    let ran = false;
    const waiter = slots.run(jobOf(endpointId), undefined, async () => void (ran = true));
    lapsing.release();
    await lapsing.run;
    // the lapsed lease went to Redis, which had no slot left: the job parked instead of running
    await expect(waiter).rejects.toBeInstanceOf(DelayedError);
    expect(ran).toBe(false);
    expect(parkedJobs).toHaveLength(1);
    expect(await leasesOf(endpointId)).toHaveProperty('size', CAP);

    for (const holder of [kept, taker]) holder.release();
    await Promise.all([kept.run, taker.run]);
  });

  it('renews on its own every renewal interval while it holds a lease, and stops once it holds none', async () => {
    const short = loadConfig({
      ...process.env,
      WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: String(CAP),
      WEBHOOK_SLOT_LEASE: '200ms',
      WEBHOOK_SLOT_RENEW_INTERVAL: '50ms',
    }).config;
    const { slots, renewals } = worker(short);
    const endpointId = randomUUID();
    const holder = await hold(slots, endpointId);
    const [firstExpiry] = (await leasesOf(endpointId)).values();
    // held through several leases: each round moved its expiry on, and the slot is still held
    await until('three renewals', () => renewals.mock.calls.length >= 3);
    await until('the lease renewed past its first expiry', async () => {
      const [expiry] = (await leasesOf(endpointId)).values();
      return expiry > firstExpiry + 2 * short.webhookSlotRenewIntervalMs;
    });
    expect(await leasesOf(endpointId)).toHaveProperty('size', 1);

    holder.release();
    await holder.run;
    const timer = () => (slots as unknown as { renewal: { timer?: NodeJS.Timeout } }).renewal.timer;
    await until('the renewals stopped', () => timer() === undefined);
    const calls = renewals.mock.calls.length;
    await slots.renewLeases();
    expect(renewals.mock.calls.length).toBe(calls);
  });
});
