import type { SendResult } from '../../src/modules/webhooks/core/delivery/webhook-sender.service';
import { DeliveryAttemptsStore } from '../../src/modules/webhooks/worker/delivery-attempts.store';
import { createTestApp, TestApp } from '../utils/app';
import { memberWithToken } from '../utils/factories';
import { createIsolatedDatabase, IsolatedDatabase } from '../utils/isolated-database';
import { createEndpoint, DELIVERY_TEST_ENV } from '../utils/worker';

const WAITING = 5_000;
const BATCH = 10;
const SUCCESS: SendResult = {
  ok: true,
  status: 200,
  responseBody: 'ok',
  durationMs: 3,
  error: null,
  retryAfterMs: null,
  gone: false,
};

/**
 * The finish reads the rows it closes and nothing more, with statistics taken while the log was
 * empty and a burst of waiting attempts since (autovacuum has not caught up): a plan made from those
 * statistics, cached with the statement or looking rows up by their state, read every waiting row of
 * the endpoint per batch (bench/README.md#delivery-throughput-benchdelivery-throughputmjs).
 */
describe('closing attempts beside thousands of waiting ones', () => {
  let db: IsolatedDatabase;
  let api: TestApp;
  let store: DeliveryAttemptsStore;

  // a database of its own: the statistics are part of the setup, and other files change the shared
  // one's; one connection, so the statement runs where a cached plan would be and its counts can be
  // flushed before they are read
  beforeAll(async () => {
    db = await createIsolatedDatabase('finish_plan');
    api = await createTestApp({
      ...DELIVERY_TEST_ENV,
      DATABASE_URL: db.url,
      DATABASE_POOL_SIZE: '1',
      REDIS_KEY_PREFIX: db.redisKeyPrefix,
    });
    store = new DeliveryAttemptsStore(api.prisma);
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await db?.drop();
  });

  /** Rows of webhook_deliveries read so far (sequential and through an index), as PostgreSQL counts them. */
  async function rowsRead(): Promise<number> {
    // flushed when the connection (the pool's only one, where the finishes ran) next goes idle,
    // which is before this answer arrives
    await api.prisma.pool.query('SELECT pg_stat_force_next_flush()');
    const { rows } = await api.prisma.pool.query<{ n: string }>(
      `SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) AS n
       FROM pg_stat_user_tables WHERE relname = 'webhook_deliveries'`,
    );
    return Number(rows[0].n);
  }

  /** A community with an endpoint that is off (no job of this file's rows is ever run by a worker). */
  async function endpointOff(path: string): Promise<{ communityId: string; endpointId: string }> {
    const { community } = await memberWithToken(api.app);
    const endpoint = await createEndpoint(api, community.id, {
      url: `http://127.0.0.1:9/${path}`,
      events: ['tweet.created'],
      isActive: false,
    });
    return { communityId: community.id, endpointId: endpoint.id };
  }

  /**
   * `count` attempts of the endpoint, numbered from `from`, the first `claimed` of them claimed and the
   * rest waiting; returns the claimed ones.
   */
  async function writeAttempts(
    { communityId, endpointId }: { communityId: string; endpointId: string },
    from: number,
    count: number,
    claimed: number,
  ): Promise<{ id: string }[]> {
    const { rows } = await api.prisma.pool.query<{ id: string }>(
      `INSERT INTO webhook_deliveries (id, community_id, endpoint_id, message_id, event_type, attempt, status,
                                       next_attempt_at, started_at, queue_position, updated_at)
       SELECT gen_random_uuid(), $1, $2, 'msg_' || n, 'tweet.created', 1, 'PENDING', now(),
              CASE WHEN n < $3 + $5 THEN now() END, n, now()
       FROM generate_series($3::int, $3::int + $4::int - 1) AS n
       ORDER BY n
       RETURNING id`,
      [communityId, endpointId, from, count, claimed],
    );
    return rows.slice(0, claimed);
  }

  /** Finishes the attempts as sent successfully, all at once; answers whether each was closed. */
  const finishAll = (communityId: string, attempts: { id: string }[]) =>
    Promise.all(attempts.map((a) => store.finish(a.id, communityId, SUCCESS, null)));

  it('closes a batch, and gives claims back, by reading their own rows, not the waiting ones', async () => {
    const target = await endpointOff('finish-plan');
    await api.prisma.pool.query('ANALYZE webhook_deliveries');
    const write = (from: number, count: number, claimed: number) =>
      writeAttempts(target, from, count, claimed);
    const finishBatch = (batch: { id: string }[]) => finishAll(target.communityId, batch);

    // seven batches while the log is small: a prepared statement's plan turns generic after its
    // fifth run, and would be made here
    const early = await write(1, 7 * BATCH, 7 * BATCH);
    for (let n = 0; n < 7; n++)
      expect(await finishBatch(early.slice(n * BATCH, (n + 1) * BATCH))).toEqual(Array(BATCH).fill(true));
    // then a burst: thousands waiting, a batch of them claimed
    const late = await write(7 * BATCH + 1, WAITING, BATCH);
    const before = await rowsRead();
    expect(await finishBatch(late)).toEqual(Array(BATCH).fill(true));
    const read = (await rowsRead()) - before;

    // the give-back of claims (a job that parks) looks its rows up the same way
    const parked = await write(7 * BATCH + WAITING + 1, BATCH, BATCH);
    const beforeGiveBack = await rowsRead();
    await Promise.all(parked.map((a) => store.unclaim(a.id, target.communityId)));
    const readByGiveBack = (await rowsRead()) - beforeGiveBack;

    // each closed row is looked up twice (locked, then updated); the hourly figures are another table
    expect(read).toBeLessThanOrEqual(4 * BATCH);
    expect(readByGiveBack).toBeLessThanOrEqual(4 * BATCH);
    const { rows: states } = await api.prisma.pool.query<{ status: string; n: string }>(
      `SELECT status, count(*) AS n FROM webhook_deliveries WHERE endpoint_id = $1 GROUP BY status ORDER BY status`,
      [target.endpointId],
    );
    expect(states).toEqual([
      // the burst's waiting rows, and the given-back claims waiting again
      { status: 'PENDING', n: String(WAITING - BATCH + parked.length) },
      { status: 'SUCCESS', n: String(8 * BATCH) },
    ]);
    const { rows: stillClaimed } = await api.prisma.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM webhook_deliveries WHERE id = ANY($1::uuid[]) AND started_at IS NOT NULL`,
      [parked.map((a) => a.id)],
    );
    expect(stillClaimed[0].n).toBe('0');
  });

  it("runs one finish statement at a time: a second would wait on the first's rows of the same endpoint", async () => {
    const target = await endpointOff('finish-one-at-a-time');
    const claimed = await writeAttempts(target, 1, 2 * BATCH, 2 * BATCH);
    const finish = (batch: { id: string }[]) => finishAll(target.communityId, batch);
    const isFinish = (text: unknown) => typeof text === 'string' && text.includes('WITH outcome AS');

    // the first finish statement is held until the second batch of calls has had every turn of the
    // event loop it needs to go out (two setImmediate turns, the scheduling's and its dispatch's, and
    // one more)
    const pool = api.prisma.pool;
    const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
    let inFlight = 0;
    let peak = 0;
    let second: Promise<boolean[]> | undefined;
    const spy = jest.spyOn(pool, 'query').mockImplementation((async (...args: unknown[]) => {
      const config = args[0] as { text?: string } | string;
      if (!isFinish(typeof config === 'string' ? config : config?.text)) return query(...args);
      peak = Math.max(peak, ++inFlight);
      try {
        if (!second) {
          second = finish(claimed.slice(BATCH));
          for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
        }
        return await query(...args);
      } finally {
        inFlight--;
      }
    }) as never);
    try {
      expect(await finish(claimed.slice(0, BATCH))).toEqual(Array(BATCH).fill(true));
      expect(await second).toEqual(Array(BATCH).fill(true));
    } finally {
      spy.mockRestore();
    }
    expect(peak).toBe(1);
    const { rows: figures } = await api.prisma.pool.query<{ attempts: number }>(
      'SELECT attempts FROM webhook_attempt_stats WHERE endpoint_id = $1',
      [target.endpointId],
    );
    expect(figures).toEqual([{ attempts: 2 * BATCH }]);
  });
});
