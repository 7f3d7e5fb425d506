import { OutboxService } from '../../src/modules/events/outbox.service';
import { DeliveryQueue } from '../../src/modules/webhooks/core/delivery-queue.service';
import { WorkerMetrics } from '../../src/modules/webhooks/worker/worker-metrics';
import { DeliveryProcessor } from '../../src/modules/webhooks/worker/delivery.processor';
import { createTestApp, TestApp } from '../utils/app';
import { endpointAtReceiver } from '../utils/delivery-stack';
import { createCommunity } from '../utils/factories';
import { Receiver, startReceiver } from '../utils/webhook-receiver';
import { DELIVERY_TEST_ENV, startTestWorker, TestWorker, waitFor } from '../utils/worker';
import { successesReach } from './delivery-helpers';
import { syntheticData } from '../utils/synthetic-event';

/**
 * Fairness between endpoints (docs/product-decisions.md#5-webhooks, WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT).
 * In-process workers, but here rather than in test/delivery: each test sets its own cap, concurrency and
 * timeout, which must not leak into the e2e suite's workers sharing that run's outbox (resilience files run
 * one at a time on a database of their own). Each test also has a queue prefix of its own.
 */
describe('endpoint fairness', () => {
  let api: TestApp;
  let receiver: Receiver;
  const workers: TestWorker[] = [];

  beforeAll(async () => {
    api = await createTestApp(DELIVERY_TEST_ENV);
    receiver = await startReceiver();
  });

  // a test's workers must not outlive it: their relay would take the next test's events
  afterEach(async () => {
    for (const worker of workers.splice(0)) await worker.stop();
  });

  afterAll(async () => {
    await api?.close();
    await receiver?.close();
  });

  /** A worker on a queue of this test's own (REDIS_KEY_PREFIX under the run's, so teardown clears it). */
  async function worker(queue: string, env: Record<string, string>) {
    const started = await startTestWorker({
      ...DELIVERY_TEST_ENV,
      REDIS_KEY_PREFIX: `${process.env.REDIS_KEY_PREFIX}:${queue}`,
      // failures must neither retry nor auto-disable here: the neighbour keeps hanging throughout
      WEBHOOK_RETRY_SCHEDULE: '1h',
      WEBHOOK_AUTO_DISABLE_MIN_FAILURES: '1000000',
      WEBHOOK_AUTO_DISABLE_AFTER: '7d',
      ...env,
    });
    workers.push(started);
    return started;
  }

  const endpointOn = (communityId: string) => endpointAtReceiver({ api, receiver }, communityId);

  /**
   * A community's endpoint whose receiver holds each request `holdMs` before answering 200, so that
   * attempts overlap; `peak()` is the most requests it had in flight at once.
   */
  async function endpointCountingPeak(holdMs: number) {
    const community = await createCommunity(api.app);
    const endpoint = await endpointOn(community.id);
    let inFlight = 0;
    let peak = 0;
    receiver.respond(endpoint.path, async () => {
      peak = Math.max(peak, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, holdMs));
      inFlight--;
      return { status: 200 };
    });
    return { community, endpoint, peak: () => peak };
  }

  /** Waits for `count` successes of the endpoint, then expects each was its event's first attempt (none retried). */
  async function deliveredAtFirstAttempt(endpointId: string, count: number) {
    await successesReach(api, endpointId, count, 'every event delivered', 30_000);
    const attempts = await api.prisma.webhookDelivery.findMany({ where: { endpointId } });
    expect(attempts.every((a) => a.attempt === 1)).toBe(true);
  }

  /** Commits `count` events, one transaction each; returns each messageId with its commit time. */
  async function raise(communityId: string, count: number, spacingMs = 0) {
    const committed = new Map<string, number>();
    for (let i = 0; i < count; i++) {
      const event = await api.prisma.$transaction((tx) =>
        api.app
          .get(OutboxService)
          .record(tx, communityId, 'tweet.created', syntheticData({ tweet: { id: `t${i}` } })),
      );
      committed.set(event.id, Date.now());
      // a steady stream, not a burst: a burst would measure the healthy endpoint's own cap
      if (spacingMs > 0) await new Promise((resolve) => setTimeout(resolve, spacingMs));
    }
    return committed;
  }

  /** p95 of commit → receipt at the receiver over the events of `committed`, in ms. */
  async function commitToReceiptP95(path: string, committed: Map<string, number>) {
    const received = await waitFor(
      `${committed.size} deliveries at ${path}`,
      () => receiver.at(path).length >= committed.size && receiver.at(path),
      30_000,
    );
    const latencies = received
      .map((r) => r.receivedAt - committed.get(String(r.headers['webhook-id']))!)
      .sort((a, b) => a - b);
    return latencies[Math.ceil(latencies.length * 0.95) - 1];
  }

  it('a receiver that never answers, with 200 events queued, leaves a healthy endpoint of another community its latency', async () => {
    const CAP = 4;
    const HEALTHY_EVENTS = 80;
    const EVENT_SPACING_MS = 15;
    const w = await worker('fair-hang', {
      WEBHOOK_TIMEOUT: '5s',
      WORKER_CONCURRENCY: '20',
      WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: String(CAP),
    });

    // baseline: the healthy endpoint alone, after a warm-up round (cold connections and code
    // paths would otherwise inflate the baseline and make the comparison meaningless)
    const healthyCommunity = await createCommunity(api.app);
    const warmUp = await endpointOn(healthyCommunity.id);
    await commitToReceiptP95(warmUp.path, await raise(healthyCommunity.id, 10, EVENT_SPACING_MS));
    await api.prisma.webhookEndpoint.update({ where: { id: warmUp.id }, data: { isActive: false } });
    const before = await endpointOn(healthyCommunity.id);
    const alone = await commitToReceiptP95(
      before.path,
      await raise(healthyCommunity.id, HEALTHY_EVENTS, EVENT_SPACING_MS),
    );

    // the neighbour: another community's receiver that never answers, 200 events queued for it
    const neighbourCommunity = await createCommunity(api.app);
    const hanging = await endpointOn(neighbourCommunity.id);
    // never answers; the worker's timeout gives up on each request
    receiver.respond(hanging.path, () => new Promise(() => undefined));
    await api.prisma.$transaction((tx) =>
      api.app.get(OutboxService).recordMany(
        tx,
        neighbourCommunity.id,
        'tweet.created',
        Array.from({ length: 200 }, (_, i) => syntheticData({ i })),
      ),
    );
    try {
      // steady state: the neighbour holds its CAP slots, the rest of its jobs are parked (delayed)
      const queue = w.context.get(DeliveryQueue).queue;
      await waitFor('the neighbour to hold its slots and its other jobs to be parked', async () => {
        const counts = await queue.getJobCounts('waiting', 'delayed');
        return (
          receiver.at(hanging.path).length >= CAP && counts.waiting === 0 && counts.delayed >= 200 - 2 * CAP
        );
      });

      // the same healthy load again (a fresh endpoint, so each run counts its own receipts)
      const after = await endpointOn(healthyCommunity.id);
      const besideHanging = await commitToReceiptP95(
        after.path,
        await raise(healthyCommunity.id, HEALTHY_EVENTS, EVENT_SPACING_MS),
      );

      // Twice the baseline, or the baseline plus 250 ms when that is more: a neighbour that took the
      // healthy endpoint's slots would cost it the neighbour's timeout (5 s, twenty times that margin),
      // while a p95 of a few milliseconds moves by tens on a 2-core machine that also runs a build
      // (4 ms alone, 10 ms beside in a quiet CI run; 133 ms once beside a compile).
      expect(besideHanging).toBeLessThanOrEqual(Math.max(2 * alone, alone + 250));
      // the neighbour is far from done: its jobs wait parked, not in worker slots
      expect(receiver.at(hanging.path).length).toBeLessThan(200);
    } finally {
      // stop feeding it: its parked jobs find it paused and are cancelled
      await api.prisma.webhookEndpoint.update({ where: { id: hanging.id }, data: { isActive: false } });
      // and take its attempts away with it, pass or fail: the next test's workers sweep the whole
      // database for due attempts, and this one's, still PENDING, would take their slots
      await api.prisma.webhookEndpoint.delete({ where: { id: hanging.id } });
    }
  }, 60_000);

  it('never lets more than WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT requests of one endpoint run at once across two workers', async () => {
    const CAP = 5;
    const EVENTS = 30;
    // each worker alone could run only 4 at once: reaching 5 proves both took part
    const env = { WORKER_CONCURRENCY: '4', WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: String(CAP) };
    await worker('fair-cap', env);
    await worker('fair-cap', env);
    // the receiver holds each request a moment, so that attempts overlap
    const { community, endpoint, peak } = await endpointCountingPeak(100);

    const committed = await raise(community.id, EVENTS);
    // parked jobs come back as the same attempt: each event was sent exactly once
    await deliveredAtFirstAttempt(endpoint.id, EVENTS);

    expect(peak()).toBeLessThanOrEqual(CAP);
    expect(peak()).toBeGreaterThan(4);
    const ids = receiver.at(endpoint.path).map((r) => String(r.headers['webhook-id']));
    expect(ids.sort()).toEqual([...committed.keys()].sort());
  }, 60_000);

  it("keeps the cap across two workers when each has more of the endpoint's jobs than the cap and hands its slots to them", async () => {
    const CAP = 3;
    const EVENTS = 60;
    // each worker takes up to 8 jobs at once, all of one endpoint: beyond the cap they wait for a
    // release of their own worker (hand-over) or park, and the two workers share the cap in Redis
    const env = { WORKER_CONCURRENCY: '8', WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: String(CAP) };
    const pair = [await worker('fair-hand-over', env), await worker('fair-hand-over', env)];
    const finished = pair.map((w) => jest.spyOn(w.context.get(WorkerMetrics), 'attemptFinished'));
    const { community, endpoint, peak } = await endpointCountingPeak(20);

    // one commit: every job is queued at once, so both workers fill up with this endpoint's jobs
    await api.prisma.$transaction((tx) =>
      api.app.get(OutboxService).recordMany(
        tx,
        community.id,
        'tweet.created',
        Array.from({ length: EVENTS }, (_, i) => syntheticData({ i })),
      ),
    );
    await deliveredAtFirstAttempt(endpoint.id, EVENTS);

    expect(peak()).toBe(CAP);
    // each event was sent exactly once, whichever worker and however many hand-overs it went through
    const ids = receiver.at(endpoint.path).map((r) => String(r.headers['webhook-id']));
    expect(ids).toHaveLength(EVENTS);
    expect(new Set(ids).size).toBe(EVENTS);
    expect(finished[0].mock.calls.length + finished[1].mock.calls.length).toBe(EVENTS);
  }, 60_000);
  it('keeps the cap when the relaying worker runs the attempts it relayed itself', async () => {
    const CAP = 3;
    const EVENTS = 40;
    // WORKER_CONCURRENCY 20: up to 4 relayed attempts run without their queue job, beside the queue's
    const w = await worker('fair-local', {
      WORKER_CONCURRENCY: '20',
      WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: String(CAP),
    });
    const ranHere = jest.spyOn(w.context.get(DeliveryProcessor), 'runIfSlotFree');
    const { community, endpoint, peak } = await endpointCountingPeak(20);

    // one commit each: the relay takes them in small batches and runs them itself while a slot is free
    const committed = await raise(community.id, EVENTS);
    await deliveredAtFirstAttempt(endpoint.id, EVENTS);

    expect(ranHere).toHaveBeenCalled();
    expect(peak()).toBeLessThanOrEqual(CAP);
    const ids = receiver.at(endpoint.path).map((r) => String(r.headers['webhook-id']));
    expect(ids.sort()).toEqual([...committed.keys()].sort());
  }, 60_000);
});
