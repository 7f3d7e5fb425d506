import { Client } from 'pg';
import { createTestApp, TestApp } from '../utils/app';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { DELIVERY_TEST_ENV, waitFor } from '../utils/worker';

const hooks = (communityId: string) => `/api/communities/${communityId}/webhooks`;
/** messages per endpoint: enough that the count is real work, seeded in SQL */
const MESSAGES = Number(process.env.REPLAY_COUNT_TEST_MESSAGES ?? 30_000);
/** Prisma's default interactive-transaction timeout, which the count once ran under */
const PRISMA_TRANSACTION_TIMEOUT_MS = 5_000;

/**
 * A replay's count over many messages (docs/api.md#bulk-replay): it runs on its own, before the short
 * transaction that checks the cap and writes the replay. Once it ran inside that transaction, with the
 * community's lock held: a count longer than Prisma's 5 s transaction timeout expired the transaction and the
 * create answered 503 (the expiry taken for a database that was not there). Here the count is made to take
 * longer than that without seeding millions of rows: the test holds a lock that the count waits behind.
 */
describe('webhook bulk replay: the count of a large selection', () => {
  let api: TestApp;
  let blocker: Client;

  beforeAll(async () => {
    api = await createTestApp(DELIVERY_TEST_ENV);
    blocker = new Client({ connectionString: api.config.DATABASE_URL });
    await blocker.connect();
  });

  afterAll(async () => {
    await blocker?.end();
    await api?.close();
  });

  it('a count slower than a transaction may last holds no transaction, and the create answers 202 with it', async () => {
    const owner = await memberWithToken(api.app, { plan: 'PRO' });
    const endpoints: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await call(api.app, 'POST', hooks(owner.community.id), {
        token: owner.token,
        body: { url: `http://127.0.0.1:9/${unique('hook')}`, events: ['tweet.created'] },
      });
      endpoints.push(res.body.data.id as string);
    }
    const at = new Date(Date.now() - 3600_000);
    const prefix = unique('msg_').replace(/[^0-9A-Za-z_]/g, '');
    await api.prisma.$executeRaw`
      INSERT INTO outbox_events (community_id, message_id, event_type, payload, created_at, relayed_at)
      SELECT ${owner.community.id}::uuid, ${prefix}::text || i, 'tweet.created',
             jsonb_build_object('id', ${prefix}::text || i, 'type', 'tweet.created', 'data', '{}'::jsonb),
             ${at}::timestamptz + i * interval '1 ms', ${at}::timestamptz
      FROM generate_series(1, ${MESSAGES}::int) i`;
    await api.prisma.$executeRaw`
      INSERT INTO webhook_deliveries
        (id, community_id, endpoint_id, message_id, event_type, attempt, status, response_status, created_at, updated_at)
      SELECT gen_random_uuid(), ${owner.community.id}::uuid, e, ${prefix}::text || i, 'tweet.created', 1, 'FAILED', 503,
             ${at}::timestamptz, ${at}::timestamptz
      FROM generate_series(1, ${MESSAGES}::int) i, unnest(${endpoints}::uuid[]) e`;
    const url = `${hooks(owner.community.id)}/replays`;
    const since = new Date(at.getTime() - 60_000).toISOString();
    // the statistics a database of this size has (without them the former statement's plan was quadratic)
    await api.prisma.$executeRawUnsafe('ANALYZE outbox_events, webhook_deliveries');
    const dry = await call(api.app, 'POST', url, { token: owner.token, body: { since, dryRun: true } });
    expect(dry.status).toBe(200);
    expect(dry.body.data.count).toBe(3 * MESSAGES);

    // the count waits behind this lock for longer than Prisma lets an interactive transaction live
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE webhook_deliveries IN ACCESS EXCLUSIVE MODE');
    const answer = call(api.app, 'POST', url, { token: owner.token, body: { since } });
    let advisoryLocksHeld: number | undefined;
    try {
      // the backend waiting for webhook_deliveries: the count (in its parse, before pg_stat_activity shows it)
      const waiting = await waitFor('the count to wait behind the lock', async () => {
        const { rows } = await blocker.query<{ pid: number }>(
          `SELECT pid FROM pg_locks WHERE NOT granted AND relation = 'webhook_deliveries'::regclass`,
        );
        return rows[0];
      });
      // nothing of the create's is held meanwhile: neither its transaction nor the community's lock
      const { rows: held } = await blocker.query<{ advisory: number }>(
        `SELECT count(*)::int AS advisory FROM pg_locks
          WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      );
      advisoryLocksHeld = held[0].advisory;
      await waitFor(
        'the count to have waited past a transaction timeout',
        async () => {
          const { rows } = await blocker.query<{ waited_ms: number }>(
            `SELECT extract(epoch FROM clock_timestamp() - waitstart) * 1000 AS waited_ms FROM pg_locks
              WHERE NOT granted AND pid = $1`,
            [waiting.pid],
          );
          return rows[0].waited_ms > PRISMA_TRANSACTION_TIMEOUT_MS + 500;
        },
        PRISMA_TRANSACTION_TIMEOUT_MS + 10_000,
        100,
      );
    } finally {
      await blocker.query('COMMIT');
    }
    const created = await answer;
    expect(created.status).toBe(202);
    expect(created.body.data).toMatchObject({ state: 'queued', total: 3 * MESSAGES });
    expect(advisoryLocksHeld).toBe(0);
    // no worker here; left queued, its 9×10^4 attempts would be taken by another file's test that drains every
    // unfinished replay of the shared database two attempts at a time (webhook-replay.e2e-spec.ts, cancel)
    const cancelled = await call(api.app, 'POST', `${url}/${created.body.data.id}/cancel`, {
      token: owner.token,
    });
    expect(cancelled.body.data.state).toBe('cancelled');
  }, 60_000);
});
