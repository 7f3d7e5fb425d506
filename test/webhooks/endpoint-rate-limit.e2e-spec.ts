import { join } from 'node:path';
import { OutboxService } from '../../src/modules/events/outbox.service';
import { RATE_WINDOW_MS } from '../../src/modules/webhooks/worker/endpoint-rate-limits';
import { ChildWorker, killStillRunning, spawnCompiled } from '../resilience/processes';
import { createTestApp, TestApp, useTestApp } from '../utils/app';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { createIsolatedDatabase, IsolatedDatabase } from '../utils/isolated-database';
import { freePort, scrape, valueOf } from '../utils/metrics';
import { syntheticData } from '../utils/synthetic-event';
import { Receiver, startReceiver } from '../utils/webhook-receiver';
import { DELIVERY_TEST_ENV, waitFor } from '../utils/worker';

const hooks = (communityId: string) => `/api/communities/${communityId}/webhooks`;

/**
 * The `rateLimit` field of an endpoint (docs/api.md#webhooks): validated, kept, shown, cleared. How
 * the workers keep to it: the describe block below, and test/resilience/endpoint-rate-limit.resilience-spec.ts
 * (a 429's hold).
 */
describe('webhook endpoint rate limit field', () => {
  const api = useTestApp(DELIVERY_TEST_ENV);

  async function owner() {
    return memberWithToken(api.app, { plan: 'PRO', role: 'OWNER' });
  }

  const create = (communityId: string, token: string, extra: Record<string, unknown>) =>
    call(api.app, 'POST', hooks(communityId), {
      token,
      body: { url: `http://127.0.0.1:9/${unique('hook')}`, events: ['tweet.created'], ...extra },
    });

  it('is null unless set, and is kept, listed, changed and removed', async () => {
    const { community, token } = await owner();
    const plain = await create(community.id, token, {});
    expect(plain.status).toBe(201);
    expect(plain.body.data.rateLimit).toBeNull();

    const limited = await create(community.id, token, { rateLimit: 25 });
    expect(limited.status).toBe(201);
    expect(limited.body.data.rateLimit).toBe(25);
    const id = limited.body.data.id as string;
    const row = await api.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } });
    expect(row.rateLimit).toBe(25);

    const list = await call(api.app, 'GET', hooks(community.id), { token });
    const listed = (list.body.data.items as { id: string; rateLimit: number | null }[]).find(
      (e) => e.id === id,
    );
    expect(listed?.rateLimit).toBe(25);

    // a PATCH without the field leaves it; with a number changes it; with null removes it
    const renamed = await call(api.app, 'PATCH', `${hooks(community.id)}/${id}`, {
      token,
      body: { description: 'slow receiver' },
    });
    expect(renamed.body.data.rateLimit).toBe(25);
    const raised = await call(api.app, 'PATCH', `${hooks(community.id)}/${id}`, {
      token,
      body: { rateLimit: 10_000 },
    });
    expect(raised.status).toBe(200);
    expect(raised.body.data.rateLimit).toBe(10_000);
    const removed = await call(api.app, 'PATCH', `${hooks(community.id)}/${id}`, {
      token,
      body: { rateLimit: null },
    });
    expect(removed.status).toBe(200);
    expect(removed.body.data.rateLimit).toBeNull();
    expect((await api.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } })).rateLimit).toBeNull();
  });

  it.each([0, 10_001, 2.5, '5', true, -1])(
    'refuses %p with 400 naming the field, and creates nothing',
    async (value) => {
      const { community, token } = await owner();
      const res = await create(community.id, token, { rateLimit: value });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(JSON.stringify(res.body)).toContain('rateLimit');
      expect(await api.prisma.webhookEndpoint.count({ where: { communityId: community.id } })).toBe(0);
    },
  );

  it("refuses an out-of-range PATCH and keeps the endpoint's limit", async () => {
    const { community, token } = await owner();
    const created = await create(community.id, token, { rateLimit: 3 });
    const id = created.body.data.id as string;
    const res = await call(api.app, 'PATCH', `${hooks(community.id)}/${id}`, {
      token,
      body: { rateLimit: 0 },
    });
    expect(res.status).toBe(400);
    expect((await api.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } })).rateLimit).toBe(3);
  });

  it("cannot be read or changed through another community's route", async () => {
    const first = await owner();
    const second = await owner();
    const created = await create(first.community.id, first.token, { rateLimit: 7 });
    const id = created.body.data.id as string;
    const res = await call(api.app, 'PATCH', `${hooks(second.community.id)}/${id}`, {
      token: second.token,
      body: { rateLimit: 9 },
    });
    expect(res.status).toBe(404);
    expect((await api.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } })).rateLimit).toBe(7);
  });
});

/**
 * How the workers keep to the limit (docs/api.md#webhooks, "Rate limit per endpoint"): three worker
 * processes (from dist/, as `npm run start:worker` runs them) share one endpoint's budget, and the
 * receiver's own clock is the judge. A send counts from its start until a window after its request
 * ended, so no second of arrivals, wherever it starts, holds more than the limit; and the sends still
 * come at close to the limit's pace. A database and queue of their own: the run's shared workers would
 * send these events too, and they are the ones whose pace is measured.
 */
describe('an endpoint rate limit kept across three worker processes, as the receiver counts', () => {
  const RATE = 20;
  /** Ten seconds of sending at the limit. */
  const EVENTS = RATE * 10;
  let db: IsolatedDatabase;
  let api: TestApp;
  let receiver: Receiver;
  const workers: ChildWorker[] = [];
  /** Each worker's metrics port: its count of attempts says how many of the endpoint's it sent. */
  const metricsPorts: number[] = [];

  beforeAll(async () => {
    db = await createIsolatedDatabase('rate_limit');
    const env = {
      ...DELIVERY_TEST_ENV,
      DATABASE_URL: db.url,
      REDIS_KEY_PREFIX: db.redisKeyPrefix,
    };
    api = await createTestApp(env);
    receiver = await startReceiver();
    process.env.WORKER_DIST ??= join(__dirname, '..', '..', 'dist');
    for (let n = 0; n < 3; n++) {
      metricsPorts.push(await freePort());
      workers.push(spawnCompiled('worker.js', { ...env, METRICS_PORT: String(metricsPorts[n]) }));
    }
    await Promise.all(workers.map((worker) => worker.ready));
  }, 60_000);

  afterAll(async () => {
    for (const worker of workers) {
      worker.process.kill('SIGTERM');
      await worker.exited;
    }
    killStillRunning(workers);
    await api?.close();
    await receiver?.close();
    await db?.drop();
  }, 60_000);

  it(`never lets more than ${RATE} arrive in any one second, and delivers at no less than 80% of ${RATE}/s`, async () => {
    /** A community with one endpoint limited to RATE, sent `events` at once; resolves once all arrived. */
    const burst = async (events: number) => {
      const { community, token } = await memberWithToken(api.app, { plan: 'PRO', role: 'OWNER' });
      const path = `/${unique('limited')}`;
      const created = await call(api.app, 'POST', `/api/communities/${community.id}/webhooks`, {
        token,
        body: { url: receiver.url + path, events: ['tweet.created'], rateLimit: RATE },
      });
      expect(created.status).toBe(201);
      const endpointId = created.body.data.id as string;
      // one commit: the whole backlog is there at once, so the limit alone sets the pace
      await api.prisma.$transaction((tx) =>
        api.app.get(OutboxService).recordMany(
          tx,
          community.id,
          'tweet.created',
          Array.from({ length: events }, (_, i) => syntheticData({ i })),
        ),
      );
      const delivered = () => new Set(receiver.at(path).map((r) => r.headers['webhook-id'])).size;
      await waitFor(`${events} events at the receiver`, () => delivered() === events, 60_000, 100);
      // and every attempt recorded, so that the workers' counts are complete
      await waitFor(
        'no attempt of the endpoint still pending',
        async () =>
          (await api.prisma.webhookDelivery.count({ where: { endpointId, status: 'PENDING' } })) === 0,
      );
      return path;
    };
    /** What each worker process has sent so far (the database is this test's own: all of it here). */
    const sentByEach = () =>
      Promise.all(
        metricsPorts.map(async (port) => valueOf(await scrape(port), 'webhook_delivery_attempts_total')),
      );

    // a warm-up of two windows' worth, held back too: fresh processes' first requests (connections,
    // code paths) are not the pace measured
    await burst(2 * RATE);
    const before = await sentByEach();
    const path = await burst(EVENTS);

    // Every window of RATE_WINDOW_MS, starting at any arrival (a window holds the most when it starts
    // at one): at most RATE, by the receiver's stamps. Every request counts, a retry's too (a request
    // the worker gave up on after WEBHOOK_TIMEOUT on a machine busy enough may still have arrived).
    const times = receiver
      .at(path)
      .map((r) => r.receivedAt)
      .sort((a, b) => a - b);
    let busiest = 0;
    for (let first = 0, last = 0; first < times.length; first++) {
      while (last < times.length && times[last] < times[first] + RATE_WINDOW_MS) last++;
      busiest = Math.max(busiest, last - first);
    }
    expect(busiest).toBeLessThanOrEqual(RATE);
    // the pace: a limiter that used every second to the full would fit them in this many windows
    const windows = (times[times.length - 1] - times[0]) / RATE_WINDOW_MS + 1;
    expect(times.length / windows).toBeGreaterThanOrEqual(0.8 * RATE);
    // the budget was shared: more than one process sent the endpoint's deliveries
    const sent = (await sentByEach()).map((count, n) => count - before[n]);
    expect(sent.filter((count) => count > 0).length).toBeGreaterThanOrEqual(2);
    expect(sent.reduce((sum, count) => sum + count, 0)).toBe(times.length);
  }, 90_000);
});
