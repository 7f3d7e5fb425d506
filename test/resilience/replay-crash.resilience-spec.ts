import { OUTCOME_UNKNOWN } from '../../src/modules/webhooks/worker/delivery-sweep.store';
import { createTestApp, TestApp } from '../utils/app';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { Receiver, startReceiver } from '../utils/webhook-receiver';
import { DELIVERY_TEST_ENV, waitFor } from '../utils/worker';
import { ChildWorker, killStillRunning, spawnWorker } from './processes';

/**
 * Messages replayed, each on every one of the 3 endpoints. REPLAY_RESILIENCE_MESSAGES lowers it where the
 * full count is too slow (docs/testing.md#tests names the count CI runs).
 */
const MESSAGES = Number(process.env.REPLAY_RESILIENCE_MESSAGES ?? 10_000);
const ENDPOINTS = 3;
const PAIRS = MESSAGES * ENDPOINTS;
/** At most this many requests are in flight in the worker, so at most this many can be cut by the kill. */
const CONCURRENCY = 20;

jest.setTimeout(20 * 60_000);

const ENV = {
  ...DELIVERY_TEST_ENV,
  WORKER_CONCURRENCY: String(CONCURRENCY),
  // a dead worker's jobs are taken over within seconds instead of the production 30 s
  WORKER_STALLED_INTERVAL: '2s',
  // the attempts the dead worker held count as failures: they must not disable an endpoint
  WEBHOOK_AUTO_DISABLE_MIN_FAILURES: '1000000',
  // small batches and a low cap on waiting attempts: at the kill, most of the replay is still unqueued
  WEBHOOK_REPLAY_BATCH: '250',
  WEBHOOK_REPLAY_MAX_PENDING: '500',
  WEBHOOK_REPLAY_INTERVAL: '50ms',
};

const hooks = (communityId: string) => `/api/communities/${communityId}/webhooks`;

/**
 * A bulk replay (docs/api.md#bulk-replay) through a worker killed with SIGKILL in its middle: the replay
 * goes on in a new worker where its last committed batch left it, queues each message once per endpoint
 * (the receivers count what arrives per message id), and finishes.
 */
describe('a bulk replay through a worker that dies', () => {
  let api: TestApp;
  const receivers: Receiver[] = [];
  const children: ChildWorker[] = [];

  beforeAll(async () => {
    api = await createTestApp(ENV);
    for (let i = 0; i < ENDPOINTS; i++) receivers.push(await startReceiver());
  });

  afterAll(async () => {
    killStillRunning(children);
    await api?.close();
    for (const receiver of receivers) await receiver.close();
  });

  it(`replays ${MESSAGES} messages on ${ENDPOINTS} endpoints once each through a SIGKILL, and finishes in a new worker`, async () => {
    const owner = await memberWithToken(api.app, { plan: 'PRO' });
    const communityId = owner.community.id;
    const endpoints: string[] = [];
    for (const receiver of receivers) {
      const created = await call(api.app, 'POST', hooks(communityId), {
        token: owner.token,
        body: { url: `${receiver.url}/${unique('replayed')}`, events: ['tweet.created'] },
      });
      expect(created.status).toBe(201);
      endpoints.push(created.body.data.id as string);
    }
    // the outage being recovered from: every message failed on every endpoint, an hour ago (seeded in SQL,
    // as the replay's e2e specs do: what is under test is the replay, not the first sends)
    const at = new Date(Date.now() - 3600_000);
    const prefix = unique('msg_').replace(/[^0-9A-Za-z_]/g, '');
    await api.prisma.$executeRaw`
      INSERT INTO outbox_events (community_id, message_id, event_type, payload, created_at, relayed_at)
      SELECT ${communityId}::uuid, ${prefix}::text || i, 'tweet.created',
             jsonb_build_object('id', ${prefix}::text || i, 'type', 'tweet.created',
                                'timestamp', ${at.toISOString()}::text, 'data', jsonb_build_object('n', i)),
             ${at}::timestamptz, ${at}::timestamptz
        FROM generate_series(1, ${MESSAGES}::int) i`;
    await api.prisma.$executeRaw`
      INSERT INTO webhook_deliveries
        (id, community_id, endpoint_id, message_id, event_type, attempt, status, response_status, created_at, updated_at)
      SELECT gen_random_uuid(), ${communityId}::uuid, e, ${prefix}::text || i, 'tweet.created', 1, 'FAILED', 503,
             ${at}::timestamptz, ${at}::timestamptz
        FROM generate_series(1, ${MESSAGES}::int) i, unnest(${endpoints}::uuid[]) e`;
    const received = () => receivers.reduce((sum, r) => sum + r.received.length, 0);

    const url = `${hooks(communityId)}/replays`;
    const since = new Date(Date.now() - 2 * 3600_000).toISOString();
    const dry = await call(api.app, 'POST', url, { token: owner.token, body: { since, dryRun: true } });
    expect(dry.status).toBe(200);
    expect(dry.body.data.count).toBe(PAIRS);
    const created = await call(api.app, 'POST', url, { token: owner.token, body: { since } });
    expect(created.status).toBe(202);
    expect(created.body.data.total).toBe(PAIRS);
    const replayId = created.body.data.id as string;
    const read = async () =>
      (await call(api.app, 'GET', `${url}/${replayId}`, { token: owner.token })).body.data;

    const first = spawnWorker(ENV);
    children.push(first);
    await waitFor('a third of the replay to arrive', () => received() >= PAIRS / 3, 10 * 60_000, 50);
    first.process.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    const atKill = await read();
    // killed in the middle: the replay was neither finished nor fully queued
    expect(atKill.state).toBe('running');
    expect(atKill.queued).toBeLessThan(PAIRS);
    const receivedAtKill = received();
    expect(receivedAtKill).toBeLessThan(PAIRS);

    const second = spawnWorker(ENV);
    children.push(second);
    const done = await waitFor(
      'the replay to finish in the new worker',
      async () => {
        const replay = await read();
        return replay.state === 'done' && replay;
      },
      10 * 60_000,
      250,
    );
    expect(done).toMatchObject({ total: PAIRS, queued: PAIRS, skipped: 0, finishedAt: expect.any(String) });
    await waitFor(
      'every replayed attempt to be sent',
      async () => {
        const waiting = await api.prisma.webhookDelivery.count({
          where: { communityId, status: 'PENDING' },
        });
        return waiting === 0 && received() >= PAIRS;
      },
      10 * 60_000,
      250,
    );
    second.process.kill('SIGTERM');
    expect(await second.exited).toBe(0);

    // the replay wrote one attempt per message and endpoint: attempt 2, marked as the replay's
    const replayed = await api.prisma.webhookDelivery.findMany({
      where: { replayId },
      select: { endpointId: true, messageId: true, attempt: true, trigger: true, error: true },
    });
    expect(replayed).toHaveLength(PAIRS);
    expect(new Set(replayed.map((r) => `${r.endpointId}/${r.messageId}`)).size).toBe(PAIRS);
    expect(replayed.every((r) => r.attempt === 2 && r.trigger === 'replay')).toBe(true);

    // at the receivers: every message on every endpoint, and nothing else
    const cutByTheKill = new Set(
      replayed.filter((r) => r.error === OUTCOME_UNKNOWN).map((r) => `${r.endpointId}/${r.messageId}`),
    );
    const retries = await api.prisma.webhookDelivery.groupBy({
      by: ['endpointId', 'messageId'],
      where: { communityId, attempt: { gt: 2 } },
      _count: { _all: true },
    });
    const retriesOf = new Map(retries.map((r) => [`${r.endpointId}/${r.messageId}`, r._count._all]));
    let repeated = 0;
    for (const [i, receiver] of receivers.entries()) {
      const counts = new Map<string, number>();
      for (const request of receiver.received) {
        const id = String(request.headers['webhook-id']);
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      expect(counts.size).toBe(MESSAGES);
      for (let n = 1; n <= MESSAGES; n++) expect(counts.has(`${prefix}${n}`)).toBe(true);
      for (const [messageId, times] of counts) {
        if (times === 1) continue;
        // a second receipt is only ever the retry of a send the kill cut short (its outcome unknown,
        // as the sweep closes a dead worker's claims), never a second attempt queued by the replay
        const pair = `${endpoints[i]}/${messageId}`;
        expect(cutByTheKill.has(pair)).toBe(true);
        expect(times).toBeLessThanOrEqual(1 + (retriesOf.get(pair) ?? 0));
        repeated++;
      }
    }
    expect(repeated).toBeLessThanOrEqual(CONCURRENCY);
  });
});
