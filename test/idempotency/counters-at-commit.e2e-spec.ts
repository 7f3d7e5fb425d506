import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { createTestApp, TestApp } from '../utils/app';
import { memberCaller } from '../utils/factories';
import { call } from '../utils/http';

/**
 * docs/idempotency.md#cost: a transaction that stays open after its write (a request with an
 * Idempotency-Key) counts its rows in the community's list counter at COMMIT, so the counter row is not
 * locked while it waits; any other transaction counts them at its INSERT, as a bulk insert must.
 */
describe('list counters of transactions that stay open', () => {
  let t: TestApp;
  let writer: Client;
  let other: Client;

  beforeAll(async () => {
    t = await createTestApp();
    writer = new Client({ connectionString: process.env.DATABASE_URL });
    other = new Client({ connectionString: process.env.DATABASE_URL });
    await Promise.all([writer.connect(), other.connect()]);
  });
  afterAll(async () => {
    await Promise.all([writer?.end(), other?.end()]);
    await t?.close();
  });

  async function tweetsCounter(communityId: string): Promise<number> {
    const { rows } = await other.query<{ value: string }>(
      `SELECT value FROM community_counters WHERE community_id = $1 AND scope = 'tweets'`,
      [communityId],
    );
    return Number(rows[0]?.value ?? 0);
  }

  /** Whether another transaction could lock the counter row right now (NOWAIT). */
  async function counterFree(communityId: string): Promise<boolean> {
    await other.query('BEGIN');
    try {
      await other.query(
        `SELECT 1 FROM community_counters WHERE community_id = $1 AND scope = 'tweets' FOR UPDATE NOWAIT`,
        [communityId],
      );
      return true;
    } catch (err) {
      if ((err as { code?: string }).code === '55P03') return false; // lock_not_available
      throw err;
    } finally {
      await other.query('ROLLBACK');
    }
  }

  async function insertTweets(communityId: string, authorId: string, count: number) {
    await writer.query(
      `INSERT INTO tweets (id, community_id, author_id, content, updated_at)
       SELECT gen_random_uuid(), $1, $2, 'counted ' || g, now() FROM generate_series(1, $3::int) g`,
      [communityId, authorId, count],
    );
  }

  it('with app.counters_at_commit: the counter row stays free until COMMIT, then counts every row', async () => {
    const owner = await memberCaller(t.app, 'apiKey');
    await call(t.app, 'POST', '/api/sdk/tweets', {
      ...owner.auth,
      body: { content: 'the counter row exists' },
    });
    const before = await tweetsCounter(owner.communityId);
    await writer.query('BEGIN');
    await writer.query(`SET LOCAL app.counters_at_commit = 'on'`);
    await insertTweets(owner.communityId, owner.userId, 3);
    expect(await counterFree(owner.communityId)).toBe(true);
    expect(await tweetsCounter(owner.communityId)).toBe(before);
    await writer.query('COMMIT');
    expect(await tweetsCounter(owner.communityId)).toBe(before + 3);
  });

  it('without it: the INSERT counts its rows at once (one bump per statement) and holds the row until COMMIT', async () => {
    const owner = await memberCaller(t.app, 'apiKey');
    await call(t.app, 'POST', '/api/sdk/tweets', {
      ...owner.auth,
      body: { content: 'the counter row exists' },
    });
    const before = await tweetsCounter(owner.communityId);
    await writer.query('BEGIN');
    await insertTweets(owner.communityId, owner.userId, 3);
    expect(await counterFree(owner.communityId)).toBe(false);
    await writer.query('COMMIT');
    expect(await tweetsCounter(owner.communityId)).toBe(before + 3);
  });

  it('a keyed write through the API is counted once, and its replay not again', async () => {
    const owner = await memberCaller(t.app, 'apiKey');
    const key = randomUUID();
    const post = () =>
      call(t.app, 'POST', '/api/sdk/tweets', {
        ...owner.auth,
        headers: { 'idempotency-key': key },
        body: { content: 'keyed and counted' },
      });
    expect((await post()).status).toBe(201);
    expect((await post()).headers['idempotent-replayed']).toBe('true');
    const list = await call(t.app, 'GET', '/api/sdk/tweets', { ...owner.auth });
    expect(list.body.data.total).toBe(1);
    expect(await tweetsCounter(owner.communityId)).toBe(1);
  });
});
