import { randomUUID } from 'node:crypto';
import type { PoolClient } from 'pg';
import { GroupCommit } from '../../src/common/batching/group-commit';
import { runWithRequestId } from '../../src/logging/request-id';
import { bindConnection } from '../../src/prisma/request-transaction';
import { createTestApp, TestApp } from '../utils/app';
import { memberCaller } from '../utils/factories';

/** What a promise came to: 'ok', 'aborted' (it ran in an aborted transaction) or its error. */
const settled = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (err: Error) => (/current transaction is aborted/.test(err.message) ? 'aborted' : err.message),
  );

/**
 * src/prisma/request-transaction.ts (keepBatchesApart, withoutBoundConnection): reads of several
 * requests that are batched into one statement (Prisma's findUnique batching, GroupCommit) run in none
 * of their transactions. Two keyed requests racing once ended in a 500 because the running one's read
 * went out in a batch from the scope of one whose claim had been refused, on its aborted transaction.
 */
describe('reads batched across requests', () => {
  let t: TestApp;
  let aborted: PoolClient;

  beforeAll(async () => {
    t = await createTestApp();
  });
  beforeEach(async () => {
    // a transaction as a refused claim leaves it: every statement sent on it fails 25P02
    aborted = await t.prisma.pool.connect();
    await aborted.query('BEGIN');
    await aborted.query('SELECT 1/0').catch(() => undefined);
  });
  afterEach(async () => {
    await aborted.query('ROLLBACK');
    aborted.release();
  });
  afterAll(() => t?.close());

  /** Runs `read` as request `id`, its statements bound to `client` when given (as a keyed request's are). */
  const asRequest = <T>(id: string, client: PoolClient | undefined, read: () => Promise<T>) =>
    runWithRequestId(id, () => {
      if (client) bindConnection(client);
      return Promise.resolve().then(read);
    });

  const findEndpoint = () =>
    t.prisma.webhookEndpoint.findUnique({
      where: { communityId_id: { communityId: randomUUID(), id: randomUUID() } },
    });

  it("Prisma's findUnique of a request without a key is not sent on a refused request's connection", async () => {
    // the same read, in the same turn, first from the keyed request: Prisma would batch them
    const keyed = settled(asRequest('keyed', aborted, findEndpoint));
    const plain = settled(asRequest('plain', undefined, findEndpoint));
    expect(await plain).toBe('ok');
    expect(await keyed).toBe('aborted');
  });

  it("a keyed request's findUnique runs on its own connection, where its uncommitted writes are", async () => {
    const owner = await memberCaller(t.app, 'apiKey');
    const writer = await t.prisma.pool.connect();
    try {
      await writer.query('BEGIN');
      const { rows } = await writer.query<{ id: string }>(
        `INSERT INTO webhook_endpoints (id, community_id, url, events, updated_at)
         VALUES (gen_random_uuid(), $1, 'https://example.com/uncommitted', '{tweet.created}', now()) RETURNING id`,
        [owner.communityId],
      );
      const find = () =>
        t.prisma.webhookEndpoint.findUnique({
          where: { communityId_id: { communityId: owner.communityId, id: rows[0].id } },
        });
      // the request without a key reads first: a batch would be sent from its scope, on the pool
      const plain = asRequest('plain', undefined, find);
      const keyed = asRequest('keyed', writer, find);
      expect(await plain).toBeNull();
      expect(await keyed).toMatchObject({ id: rows[0].id });
    } finally {
      await writer.query('ROLLBACK');
      writer.release();
    }
  });

  it("a GroupCommit batch started by a keyed request's call runs on the pool, for every call of it", async () => {
    const batch = new GroupCommit<number, number>(
      async (items) => {
        const { rows } = await t.prisma.pool.query<{ n: number }>('SELECT unnest($1::int[]) AS n', [items]);
        return rows.map((row) => row.n);
      },
      { maxConcurrentBatches: 1, maxBatchSize: 10 },
    );
    const keyed = asRequest('keyed', aborted, () => batch.call(1));
    const plain = asRequest('plain', undefined, () => batch.call(2));
    expect(await Promise.all([keyed, plain])).toEqual([1, 2]);
  });
});
