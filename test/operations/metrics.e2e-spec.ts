import { newMessageId } from '../../src/modules/events/event-body';
import type { SubscribableEvent } from '../../src/modules/events/event-catalog';
import { OutboxService } from '../../src/modules/events/outbox.service';
import { DeliveryQueue } from '../../src/modules/webhooks/core/delivery-queue.service';
import { deliveryJobId } from '../../src/modules/webhooks/core/delivery-job';
import { OutboxRelay } from '../../src/modules/webhooks/worker/outbox-relay.service';
import { MetricsServer } from '../../src/metrics/metrics-server';
import { UNMATCHED_ROUTE } from '../../src/metrics/http-metrics';
import { createTestApp, TestApp } from '../utils/app';
import { createCommunity, memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { createIsolatedDatabase, IsolatedDatabase } from '../utils/isolated-database';
import {
  composeWorkerHealthcheck,
  freePort,
  getFrom,
  getLocal,
  Sample,
  scrape,
  valueOf,
} from '../utils/metrics';
import { Receiver, startReceiver } from '../utils/webhook-receiver';
import { createEndpoint, DELIVERY_TEST_ENV, startTestWorker, TestWorker, waitFor } from '../utils/worker';
import { syntheticData } from '../utils/synthetic-event';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/**
 * Both processes scraped over their METRICS_PORT. The API and the worker get a database and a
 * queue of their own: the gauges count over every community, and with the run's shared database
 * other files' workers would relay and deliver this file's events (and count them in their registry).
 */
describe('Prometheus metrics (API and worker) and the worker health port', () => {
  let db: IsolatedDatabase;
  let env: Record<string, string>;
  let api: TestApp;
  let worker: TestWorker;
  let receiver: Receiver;
  let apiPort: number;
  let workerPort: number;

  beforeAll(async () => {
    db = await createIsolatedDatabase('metrics');
    apiPort = await freePort();
    do workerPort = await freePort();
    while (workerPort === apiPort);
    env = {
      ...DELIVERY_TEST_ENV,
      DATABASE_URL: db.url,
      REDIS_KEY_PREFIX: db.redisKeyPrefix,
      // one job at a time, so a held delivery leaves the next one waiting; a held send must not time out
      WORKER_CONCURRENCY: '1',
      WEBHOOK_TIMEOUT: '25s',
    };
    api = await createTestApp({ ...env, METRICS_PORT: String(apiPort) });
    worker = await startTestWorker({ ...env, METRICS_PORT: String(workerPort) });
    receiver = await startReceiver();
  }, 60_000);

  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await receiver?.close();
    await db?.drop();
  });

  async function raise(communityId: string, type: SubscribableEvent) {
    return api.prisma.$transaction((tx) =>
      api.app.get(OutboxService).record(tx, communityId, type, syntheticData()),
    );
  }

  async function endpointOn(communityId: string, events: string[]) {
    const path = `/${unique('hook')}`;
    return { ...(await createEndpoint(api, communityId, { url: receiver.url + path, events })), path };
  }

  /** Waits until `read(scrape)` equals `expected`; returns the last scrape. */
  async function scrapeUntil(port: number, what: string, read: (s: Sample[]) => boolean): Promise<Sample[]> {
    let last: Sample[] = [];
    await waitFor(what, async () => read((last = await scrape(port))));
    return last;
  }

  describe('API', () => {
    const requests = (s: Sample[], labels: Record<string, string>) =>
      valueOf(s, 'http_request_duration_seconds_count', labels);

    it('counts requests by route template, method and status, with their durations', async () => {
      const community = await createCommunity(api.app);
      const webhooks = '/api/communities/:communityId/webhooks';
      const before = await scrape(apiPort);
      expect((await call(api.app, 'GET', '/api/health')).status).toBe(200);
      expect((await call(api.app, 'GET', `/api/communities/${community.id}/webhooks`)).status).toBe(401);
      await call(api.app, 'GET', `/api/no-such-route/${community.id}`);
      const after = await scrape(apiPort);

      const health = { method: 'GET', route: '/api/health', status_code: '200' };
      expect(requests(after, health) - requests(before, health)).toBe(1);
      const refused = { method: 'GET', route: webhooks, status_code: '401' };
      expect(requests(after, refused) - requests(before, refused)).toBe(1);
      expect(requests(after, { route: UNMATCHED_ROUTE }) - requests(before, { route: UNMATCHED_ROUTE })).toBe(
        1,
      );
      // a histogram: the duration sum moved and the +Inf bucket holds every request
      expect(valueOf(after, 'http_request_duration_seconds_sum', health)).toBeGreaterThan(
        valueOf(before, 'http_request_duration_seconds_sum', health),
      );
      expect(valueOf(after, 'http_request_duration_seconds_bucket', { ...health, le: '+Inf' })).toBe(
        requests(after, health),
      );
    });

    it('counts rate-limit refusals (429 RATE_LIMITED) by route template', async () => {
      const { community, token } = await memberWithToken(api.app, { plan: 'PRO' });
      const endpoint = await endpointOn(community.id, ['tweet.created']);
      const route = '/api/communities/:communityId/webhooks/:webhookId/rotate-secret';
      const url = `/api/communities/${community.id}/webhooks/${endpoint.id}/rotate-secret`;
      const before = valueOf(await scrape(apiPort), 'http_rate_limit_refusals_total', { route });
      for (let i = 0; i < 5; i++) expect((await call(api.app, 'POST', url, { token })).status).toBe(200);
      expect(valueOf(await scrape(apiPort), 'http_rate_limit_refusals_total', { route })).toBe(before);
      const refused = await call(api.app, 'POST', url, { token });
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('RATE_LIMITED');
      expect(valueOf(await scrape(apiPort), 'http_rate_limit_refusals_total', { route })).toBe(before + 1);
    });

    it('exports the default process metrics and answers nothing but /metrics', async () => {
      const samples = await scrape(apiPort);
      for (const name of [
        'process_cpu_user_seconds_total',
        'process_resident_memory_bytes',
        'nodejs_eventloop_lag_seconds',
      ])
        expect(samples.some((s) => s.name === name)).toBe(true);
      // the API's health routes are /api/health/*, on the public port
      expect((await getLocal(apiPort, '/health/ready')).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${apiPort}/metrics`, { method: 'POST' })).status).toBe(405);
    });
  });

  describe('worker', () => {
    const attempts = (s: Sample[], outcome: string) =>
      valueOf(s, 'webhook_delivery_attempts_total', { outcome, event_type: 'tweet.created' });
    const firstLatencies = (s: Sample[]) =>
      valueOf(s, 'webhook_delivery_latency_seconds_count', { attempt: 'first' });

    it('counts attempts by outcome and event type, their commit → attempt-end latency, and disabled endpoints', async () => {
      const community = await createCommunity(api.app);
      await endpointOn(community.id, ['tweet.created']);
      const gone = await endpointOn(community.id, ['tweet.created']);
      receiver.respond(gone.path, () => ({ status: 410 }));
      const before = await scrape(workerPort);

      await raise(community.id, 'tweet.created');
      const after = await scrapeUntil(
        workerPort,
        'both attempts counted and the 410 endpoint disabled',
        (s) =>
          attempts(s, 'success') === attempts(before, 'success') + 1 &&
          attempts(s, 'gone') === attempts(before, 'gone') + 1 &&
          valueOf(s, 'webhook_endpoints_disabled') === valueOf(before, 'webhook_endpoints_disabled') + 1,
      );
      expect(firstLatencies(after) - firstLatencies(before)).toBe(2);
      expect(valueOf(after, 'webhook_delivery_latency_seconds_sum', { attempt: 'first' })).toBeGreaterThan(
        valueOf(before, 'webhook_delivery_latency_seconds_sum', { attempt: 'first' }),
      );
      expect(attempts(after, 'http_error')).toBe(attempts(before, 'http_error'));
    });

    it('shows a FIFO endpoint held back by its failing head, and the deliveries waiting behind it', async () => {
      const community = await createCommunity(api.app);
      const endpoint = await endpointOn(community.id, ['tweet.created']);
      await api.prisma.webhookEndpoint.update({ where: { id: endpoint.id }, data: { ordering: 'fifo' } });
      const before = await scrape(workerPort);
      // the head failed and waits an hour for its retry; three deliveries are queued behind it
      const rows = [0, 1, 2, 3].map((n) => ({
        communityId: community.id,
        endpointId: endpoint.id,
        messageId: newMessageId(),
        eventType: 'tweet.created',
        attempt: n === 0 ? 2 : 1,
        queuePosition: BigInt(n + 1),
        nextAttemptAt: new Date(Date.now() + (n === 0 ? 3600_000 : 0)),
      }));
      await api.prisma.webhookDelivery.createMany({ data: rows });
      const after = await scrapeUntil(
        workerPort,
        'the blocked FIFO endpoint',
        (s) =>
          valueOf(s, 'webhook_fifo_endpoints_blocked') ===
          valueOf(before, 'webhook_fifo_endpoints_blocked') + 1,
      );
      expect(valueOf(after, 'webhook_fifo_deliveries_waiting')).toBe(
        valueOf(before, 'webhook_fifo_deliveries_waiting') + 3,
      );
      await api.prisma.webhookDelivery.deleteMany({ where: { endpointId: endpoint.id } });
    });

    it('reports queue jobs waiting, delayed and active as they are', async () => {
      const community = await createCommunity(api.app);
      const held = await endpointOn(community.id, ['tweet.created']);
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      receiver.respond(held.path, async () => {
        await released;
        return { status: 200 };
      });
      const queue = worker.context.get(DeliveryQueue);
      const parked = {
        communityId: community.id,
        endpointId: held.id,
        messageId: newMessageId(),
        eventType: 'tweet.created',
        attempt: 2,
        outboxId: '0',
        payload: {
          id: 'x',
          type: 'tweet.created' as const,
          timestamp: new Date().toISOString(),
          communityId: community.id,
          subject: community.id,
          data: {},
        },
      };
      const jobs = (s: Sample[], state: string) => valueOf(s, 'webhook_queue_jobs', { state });
      try {
        await raise(community.id, 'tweet.created');
        await waitFor('the first delivery to be held', () => receiver.at(held.path).length === 1);
        await raise(community.id, 'tweet.created');
        await queue.addDelayed(parked, 3_600_000);
        await scrapeUntil(
          workerPort,
          'one job active (held), one waiting behind it (concurrency 1), one delayed',
          (s) => jobs(s, 'active') === 1 && jobs(s, 'waiting') === 1 && jobs(s, 'delayed') === 1,
        );
      } finally {
        release();
        await queue.queue.remove(deliveryJobId(parked.messageId, parked.endpointId, parked.attempt));
      }
      await scrapeUntil(
        workerPort,
        'the queue to empty',
        (s) => jobs(s, 'active') === 0 && jobs(s, 'waiting') === 0 && jobs(s, 'delayed') === 0,
      );
      expect(receiver.at(held.path)).toHaveLength(2);
    });

    it('reports the outbox lag: the age of the oldest unrelayed event', async () => {
      const community = await createCommunity(api.app);
      const relay = worker.context.get(OutboxRelay);
      await relay.stop();
      try {
        const messageId = newMessageId();
        await api.prisma.outboxEvent.create({
          data: {
            communityId: community.id,
            messageId,
            eventType: 'tweet.created',
            payload: {
              id: messageId,
              type: 'tweet.created',
              timestamp: new Date().toISOString(),
              communityId: community.id,
              data: {},
            },
            createdAt: new Date(Date.now() - 90_000),
          },
        });
        expect(valueOf(await scrape(workerPort), 'outbox_lag_seconds')).toBeGreaterThanOrEqual(90);
      } finally {
        relay.start();
      }
      await scrapeUntil(
        workerPort,
        'the lag to fall to 0 once relayed',
        (s) => valueOf(s, 'outbox_lag_seconds') === 0,
      );
    });

    it('reports deliveries due but not queued (PENDING, due longer ago than the grace)', async () => {
      const community = await createCommunity(api.app);
      const endpoint = await endpointOn(community.id, ['tweet.created']);
      const before = valueOf(await scrape(workerPort), 'webhook_deliveries_overdue');
      const dueLater = {
        communityId: community.id,
        endpointId: endpoint.id,
        eventType: 'tweet.created',
        status: 'PENDING' as const,
      };
      await api.prisma.webhookDelivery.createMany({
        data: [
          // Due an hour ago and held by a worker (a backlog): claimed, because the other specs' workers
          // sweep the whole table and would close an unclaimed attempt whose event body is absent.
          {
            ...dueLater,
            messageId: newMessageId(),
            attempt: 2,
            nextAttemptAt: new Date(Date.now() - 3_600_000),
            startedAt: new Date(),
          },
          // due in the future, or only just due: not overdue
          {
            ...dueLater,
            messageId: newMessageId(),
            attempt: 2,
            nextAttemptAt: new Date(Date.now() + 3_600_000),
          },
          { ...dueLater, messageId: newMessageId(), attempt: 2, nextAttemptAt: new Date() },
        ],
      });
      try {
        expect(valueOf(await scrape(workerPort), 'webhook_deliveries_overdue')).toBe(before + 1);
      } finally {
        await api.prisma.webhookDelivery.deleteMany({ where: { endpointId: endpoint.id } });
      }
    });

    it('answers /health/live and /health/ready (database and Redis) on its metrics port', async () => {
      const live = await getLocal(workerPort, '/health/live');
      expect(live.status).toBe(200);
      expect(JSON.parse(live.text)).toEqual({ status: 'ok' });
      const ready = await getLocal(workerPort, '/health/ready');
      expect(ready.status).toBe(200);
      expect(JSON.parse(ready.text)).toEqual({ status: 'ok', checks: { database: 'up', redis: 'up' } });
      // the compose file's health check asks exactly this
      expect(await composeWorkerHealthcheck(workerPort)).toBe(0);
    });
  });

  it('never puts an id in a label value (bounded cardinality)', async () => {
    const { community, token } = await memberWithToken(api.app, { plan: 'PRO' });
    await call(api.app, 'GET', `/api/communities/${community.id}/webhooks`, { token });
    await call(api.app, 'GET', `/api/communities/${community.id}/webhooks/${community.id}/deliveries`, {
      token,
    });
    for (const port of [apiPort, workerPort]) {
      const samples = await scrape(port);
      expect(samples.length).toBeGreaterThan(0);
      const values = samples.flatMap((s) => Object.values(s.labels));
      expect(values.filter((v) => UUID.test(v) || v.includes('msg_'))).toEqual([]);
    }
  });

  it('both listen on METRICS_HOST, loopback by default: not on another address of the host', async () => {
    for (const [server, port] of [
      [api.app.get(MetricsServer), apiPort],
      [worker.context.get(MetricsServer), workerPort],
    ] as const) {
      expect(server.address).toBe('127.0.0.1');
      expect((await getFrom('127.0.0.1', port, '/metrics')).status).toBe(200);
      // 127.0.0.2 is this host too (all of 127/8 is loopback): a listener on 0.0.0.0 would answer there
      await expect(getFrom('127.0.0.2', port, '/metrics')).rejects.toThrow();
    }
    await expect(getFrom('127.0.0.2', workerPort, '/health/ready')).rejects.toThrow();
  });

  it('METRICS_PORT=0 opens no metrics server in either process', async () => {
    const quietApi = await createTestApp({ ...env, METRICS_PORT: '0' });
    const quietWorker = await startTestWorker({
      ...env,
      METRICS_PORT: '0',
      REDIS_KEY_PREFIX: `${db.redisKeyPrefix}:quiet`,
    });
    try {
      expect(quietApi.app.get(MetricsServer).port).toBeUndefined();
      expect(quietWorker.context.get(MetricsServer).port).toBeUndefined();
      expect(api.app.get(MetricsServer).port).toBe(apiPort);
    } finally {
      await quietWorker.stop();
      await quietApi.close();
    }
  });
});
