import { createHash, randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { Logger } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { IdempotencyKeysStore } from '../../src/modules/idempotency/idempotency-keys.store';
import { IdempotencyRetention } from '../../src/modules/idempotency/idempotency-retention.service';
import { SealedAnswers } from '../../src/modules/idempotency/sealed-answers';
import { createTestApp, TestApp } from '../utils/app';
import { memberCaller, memberWithCredentials, outboxOf, unique } from '../utils/factories';
import { call, type CallOptions, type CallResult } from '../utils/http';
import { Receiver, startReceiver } from '../utils/webhook-receiver';
import { createEndpoint, DELIVERY_TEST_ENV, startTestWorker, TestWorker, waitFor } from '../utils/worker';

/** How many answers the community's callers keep under Idempotency-Keys (each test makes its own community). */
async function answersOf(t: TestApp, communityId: string): Promise<number> {
  const { rows } = await t.prisma.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM idempotency_keys WHERE caller LIKE '%@' || $1`,
    [communityId],
  );
  return rows[0].n;
}

/** docs/idempotency.md: one logical write, one row and one event, however often it is sent. */
describe('Idempotency-Key on writes', () => {
  let a: TestApp;
  let b: TestApp;
  let worker: TestWorker;
  let receiver: Receiver;

  beforeAll(async () => {
    [a, b] = await Promise.all([createTestApp(DELIVERY_TEST_ENV), createTestApp(DELIVERY_TEST_ENV)]);
    worker = await startTestWorker();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await worker?.stop();
    await Promise.all([a?.close(), b?.close()]);
    await receiver?.close();
  });

  const post = (t: TestApp, auth: CallOptions, key: string, body: unknown, url = '/api/sdk/tweets') =>
    call(t.app, 'POST', url, { ...auth, headers: { 'idempotency-key': key }, body });

  const tweetsOf = (communityId: string) => a.prisma.tweet.findMany({ where: { communityId } });

  /** A member whose community has an endpoint subscribed to tweet.created. */
  async function subscribedMember() {
    const owner = await memberCaller(a.app, 'apiKey');
    const path = `/${unique('hook')}`;
    const endpoint = await createEndpoint(a, owner.communityId, {
      url: receiver.url + path,
      events: ['tweet.created'],
    });
    return { owner, endpoint, path };
  }

  /** Every delivery of the community's events has ended, and the receiver got `count` at `path`. */
  async function deliveredOnce(communityId: string, endpointId: string, path: string) {
    await waitFor('the delivery', async () => {
      const pending = await a.prisma.webhookDelivery.count({ where: { communityId, status: 'PENDING' } });
      const unrelayed = await a.prisma.outboxEvent.count({ where: { communityId, relayedAt: null } });
      return pending === 0 && unrelayed === 0 && receiver.at(path).length >= 1;
    });
    expect(receiver.at(path)).toHaveLength(1);
    expect(await a.prisma.webhookDelivery.count({ where: { endpointId } })).toBe(1);
  }

  it('a tweet posted three times with one key is one tweet, one event, one delivery; the repeats are replays', async () => {
    const { owner, endpoint, path } = await subscribedMember();
    const key = randomUUID();
    const first = await post(a, owner.auth, key, { content: 'once' });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const second = await post(a, owner.auth, key, { content: 'once' });
    const third = await post(b, owner.auth, key, { content: 'once' });
    for (const repeat of [second, third]) {
      expect(repeat.status).toBe(201);
      expect(repeat.headers['idempotent-replayed']).toBe('true');
      expect(repeat.body).toEqual(first.body);
    }
    expect(await tweetsOf(owner.communityId)).toHaveLength(1);
    expect(await outboxOf(a.app, owner.communityId, 'tweet.created')).toHaveLength(1);
    await deliveredOnce(owner.communityId, endpoint.id, path);
  });

  it('three at once through two instances: one runs, the others wait (409, Retry-After: 1) or replay', async () => {
    const { owner, endpoint, path } = await subscribedMember();
    const key = randomUUID();
    const answers = await Promise.all([a, b, a].map((t) => post(t, owner.auth, key, { content: 'at once' })));
    const settled: CallResult[] = [];
    for (const [i, answer] of answers.entries()) {
      let current = answer;
      while (current.status === 409) {
        expect(current.body.code).toBe('IDEMPOTENCY_KEY_IN_USE');
        expect(current.headers['retry-after']).toBe('1');
        current = await post([a, b, a][i], owner.auth, key, { content: 'at once' });
      }
      settled.push(current);
    }
    expect(settled.map((r) => r.status)).toEqual([201, 201, 201]);
    expect(settled.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(2);
    for (const r of settled) expect(r.body).toEqual(settled[0].body);
    expect(await tweetsOf(owner.communityId)).toHaveLength(1);
    expect(await outboxOf(a.app, owner.communityId, 'tweet.created')).toHaveLength(1);
    await deliveredOnce(owner.communityId, endpoint.id, path);
  });

  it('the same key with another body or route is 422 IDEMPOTENCY_KEY_REUSED, and writes nothing', async () => {
    const owner = await memberCaller(a.app, 'jwt');
    const key = randomUUID();
    const first = await post(a, owner.auth, key, { content: 'original' });
    expect(first.status).toBe(201);
    const otherBody = await post(a, owner.auth, key, { content: 'changed' });
    expect(otherBody.status).toBe(422);
    expect(otherBody.body).toMatchObject({ success: false, code: 'IDEMPOTENCY_KEY_REUSED' });
    // the same bytes but another key order: another body
    const reordered = await call(a.app, 'POST', '/api/sdk/tweets', {
      ...owner.auth,
      headers: { 'idempotency-key': key },
      body: '{ "content": "original" }',
    });
    expect(reordered.status).toBe(422);
    const otherRoute = await post(a, owner.auth, key, { title: 'a task' }, '/api/sdk/tasks');
    expect(otherRoute.status).toBe(422);
    expect(await tweetsOf(owner.communityId)).toHaveLength(1);
    expect(await a.prisma.task.count({ where: { communityId: owner.communityId } })).toBe(0);
  });

  it('a key is scoped to the credential and the community: another API key, user or community runs anew', async () => {
    const member = await memberWithCredentials(a.app);
    const communityId = member.community.id;
    const key = randomUUID();
    const body = { content: 'scoped' };
    expect((await post(a, { apiKey: member.apiKey }, key, body)).status).toBe(201);
    // the same member's login token is another identity than their API key
    const asUser = await post(a, { token: member.token }, key, body);
    expect(asUser.status).toBe(201);
    expect(asUser.headers['idempotent-replayed']).toBeUndefined();
    // another member of the same community, with their own key
    const other = await memberCaller(a.app, 'apiKey', { communityId });
    expect((await post(a, other.auth, key, body)).headers['idempotent-replayed']).toBeUndefined();
    expect(await tweetsOf(communityId)).toHaveLength(3);
    // another community: the same user's token acting elsewhere
    const elsewhere = await memberCaller(a.app, 'jwt');
    const inOther = await post(a, elsewhere.auth, key, body);
    expect(inOther.status).toBe(201);
    expect(inOther.headers['idempotent-replayed']).toBeUndefined();
    // the first community's replay is still its own
    const replay = await post(a, { apiKey: member.apiKey }, key, body);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data.communityId).toBe(communityId);
    expect(await tweetsOf(elsewhere.communityId)).toHaveLength(1);
  });

  it('an answer refused by validation is not kept: the fixed body with the same key runs', async () => {
    const owner = await memberCaller(a.app, 'apiKey');
    const key = randomUUID();
    const invalid = await post(a, owner.auth, key, { content: '' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.code).toBe('VALIDATION_ERROR');
    const unknownField = await post(a, owner.auth, key, { content: 'x', extra: 1 });
    expect(unknownField.status).toBe(400);
    const fixed = await post(a, owner.auth, key, { content: 'fixed' });
    expect(fixed.status).toBe(201);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();
    expect(await tweetsOf(owner.communityId)).toHaveLength(1);
  });

  it("a handler's 4xx is not kept: it wrote nothing, and a retry with the key runs again", async () => {
    const owner = await memberCaller(a.app, 'apiKey');
    const send = (method: 'PATCH' | 'DELETE', url: string, key: string, body?: unknown) =>
      call(a.app, method, url, { ...owner.auth, headers: { 'idempotency-key': key }, body });
    // 404: the tweet does not exist (yet); once it does, the same key edits it
    const key = randomUUID();
    const missing = await send('PATCH', `/api/sdk/tweets/${randomUUID()}`, key, { content: 'edit' });
    expect(missing.status).toBe(404);
    expect(await answersOf(a, owner.communityId)).toBe(0);
    const again = await send('PATCH', `/api/sdk/tweets/${randomUUID()}`, key, { content: 'edit' });
    expect(again.status).toBe(404);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    const tweet = (await post(a, owner.auth, randomUUID(), { content: 'now it exists' })).body.data;
    const edited = await send('PATCH', `/api/sdk/tweets/${tweet.id}`, key, { content: 'edit' });
    expect(edited.status).toBe(200);
    expect(edited.headers['idempotent-replayed']).toBeUndefined();
    // the tweet's create and its edit
    expect(await answersOf(a, owner.communityId)).toBe(2);

    // 409: the last OWNER cannot be demoted; the refusal is not pinned to the key
    const demote = randomUUID();
    const membership = await a.prisma.membership.findFirstOrThrow({
      where: { communityId: owner.communityId, userId: owner.userId },
    });
    const refused = await send('PATCH', `/api/sdk/members/${membership.id}/role`, demote, { role: 'MEMBER' });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('CONFLICT');
    expect(await answersOf(a, owner.communityId)).toBe(2);
    expect(await outboxOf(a.app, owner.communityId, 'tweet.updated')).toHaveLength(1);
  });

  it('a hundred keys on writes that find nothing leave no row', async () => {
    const owner = await memberCaller(a.app, 'apiKey');
    const keys = Array.from({ length: 100 }, () => randomUUID());
    for (let i = 0; i < keys.length; i += 50)
      await Promise.all(
        keys.slice(i, i + 50).map(async (key) => {
          const res = await call(a.app, 'DELETE', `/api/sdk/tweets/${randomUUID()}`, {
            ...owner.auth,
            headers: { 'idempotency-key': key },
          });
          expect(res.status).toBe(404);
        }),
      );
    expect(await answersOf(a, owner.communityId)).toBe(0);
  });

  it('a write never commits beside an answer already kept under its key: the check at the commit', async () => {
    // the claim's lock and lookup keep two runs of one key apart; this is the last line behind them,
    // provoked by keeping an answer from another connection between the claim and the commit
    const owner = await memberCaller(a.app, 'apiKey');
    const store = a.app.get(IdempotencyKeysStore);
    const id = createHash('sha256').update(randomUUID()).digest('hex');
    const answer = { requestHash: 'theirs', responseBody: '{"theirs":true}' };
    const client = await a.prisma.pool.connect();
    try {
      expect(await store.claim(client, id, '4242', () => undefined)).toBe('claimed');
      await client.query(
        `INSERT INTO tweets (id, community_id, author_id, content, updated_at)
         VALUES (gen_random_uuid(), $1, $2, 'the second run', now())`,
        [owner.communityId, owner.userId],
      );
      await a.prisma.pool.query(
        `INSERT INTO idempotency_keys (id, request_hash, status_code, response_body, expires_at)
         VALUES ($1, $2, 201, $3, now() + interval '1 hour')`,
        [id, answer.requestHash, answer.responseBody],
      );
      const mine = {
        requestHash: 'mine',
        statusCode: 201,
        body: a.app.get(SealedAnswers).seal('{"mine":true}'),
        location: null,
      };
      const kept = await store.keep(client, id, mine, { caller: 'test@mine', ttlMs: 60_000, cap: 10 });
      expect(kept).toBe(false);
    } finally {
      store.release(client);
    }
    expect(await tweetsOf(owner.communityId)).toHaveLength(0);
    const { rows } = await a.prisma.pool.query('SELECT request_hash FROM idempotency_keys WHERE id = $1', [
      id,
    ]);
    expect(rows).toEqual([{ request_hash: 'theirs' }]);
  });

  it("the claim and the handler's first statement leave in one write; behind a taken key, that statement never runs", async () => {
    const owner = await memberCaller(a.app, 'apiKey');
    const store = a.app.get(IdempotencyKeysStore);
    const insertTweet = (client: PoolClient) =>
      client.query(
        `INSERT INTO tweets (id, community_id, author_id, content, updated_at)
         VALUES (gen_random_uuid(), $1, $2, 'behind the claim', now())`,
        [owner.communityId, owner.userId],
      );
    /** The socket writes `client` makes from now on. */
    const countWrites = (client: PoolClient) => {
      const socket = (client as unknown as { connection: { stream: Socket } }).connection.stream;
      const writes = { count: 0 };
      for (const method of ['_write', '_writev'] as const) {
        const original = socket[method] as (...args: unknown[]) => void;
        socket[method] = ((...args: unknown[]) => {
          writes.count++;
          return original.apply(socket, args);
        }) as never;
      }
      return writes;
    };

    const client = await a.prisma.pool.connect();
    try {
      const writes = countWrites(client);
      const claimed = store.claim(
        client,
        createHash('sha256').update(randomUUID()).digest('hex'),
        '4343',
        () => fail('refused'),
      );
      const inserted = insertTweet(client);
      expect(await claimed).toBe('claimed');
      await inserted;
      expect(writes.count).toBe(1);
      await store.abandon(client);
    } finally {
      store.release(client);
    }

    // another session holds the key's lock: the claim raises, and the INSERT sent behind it fails unrun
    const holder = await a.prisma.pool.connect();
    const refused = await a.prisma.pool.connect();
    const seen: string[] = [];
    try {
      await holder.query('BEGIN; SELECT pg_advisory_xact_lock(4444)');
      const claim = store.claim(
        refused,
        createHash('sha256').update(randomUUID()).digest('hex'),
        '4444',
        () => seen.push('claim refused'),
      );
      const insert = insertTweet(refused).catch((err: { code?: string }) => seen.push(`insert ${err.code}`));
      expect(await claim).toBe('in-use');
      await insert;
      // told before the statement's failure, so the handler's error is known for the key's, not a fault
      expect(seen).toEqual(['claim refused', 'insert 25P02']);
      await store.abandon(refused);
    } finally {
      store.release(refused);
      await holder.query('ROLLBACK');
      holder.release();
    }
    expect(await tweetsOf(owner.communityId)).toHaveLength(0);
  });

  it('a repeat overrules its handler quietly: no error is logged for the statements that failed behind the claim', async () => {
    const owner = await memberCaller(a.app, 'apiKey');
    const key = randomUUID();
    expect((await post(a, owner.auth, key, { content: 'logged once' })).status).toBe(201);
    const errors = jest.spyOn(Logger.prototype, 'error');
    try {
      const again = await post(a, owner.auth, key, { content: 'logged once' });
      expect(again.status).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      const reused = await post(a, owner.auth, key, { content: 'another body' });
      expect(reused.status).toBe(422);
      expect(errors).not.toHaveBeenCalled();
    } finally {
      errors.mockRestore();
    }
    expect(await tweetsOf(owner.communityId)).toHaveLength(1);
  });

  it('a malformed key is 400 VALIDATION_ERROR naming the header, and nothing is written', async () => {
    const owner = await memberCaller(a.app, 'apiKey');
    for (const bad of ['', 'has space', 'x'.repeat(256), 'é']) {
      const res = await call(a.app, 'POST', '/api/sdk/tweets', {
        ...owner.auth,
        headers: { 'idempotency-key': bad },
        body: { content: 'x' },
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: [{ field: 'Idempotency-Key' }],
      });
    }
    expect((await post(a, owner.auth, 'x'.repeat(255), { content: 'ok' })).status).toBe(201);
    expect((await post(a, owner.auth, '!~', { content: 'ok' })).status).toBe(201);
    expect(await tweetsOf(owner.communityId)).toHaveLength(2);
  });

  it('an expired answer is not replayed: the key runs again', async () => {
    const short = await createTestApp({ ...DELIVERY_TEST_ENV, IDEMPOTENCY_KEY_TTL: '1ms' });
    try {
      const owner = await memberCaller(short.app, 'apiKey');
      const key = randomUUID();
      expect((await post(short, owner.auth, key, { content: 'x' })).status).toBe(201);
      // the answers kept for 1 ms (no other app of the run keeps any that briefly)
      const unexpired = async () => {
        const rows = await short.prisma.$queryRaw<{ n: number }[]>`
          SELECT count(*)::int AS n FROM idempotency_keys
           WHERE expires_at - created_at < interval '1 second' AND expires_at > now()`;
        return rows[0].n;
      };
      await waitFor('the answer to expire', async () => (await unexpired()) === 0);
      const again = await post(short, owner.auth, key, { content: 'x' });
      expect(again.status).toBe(201);
      expect(again.headers['idempotent-replayed']).toBeUndefined();
      expect(await tweetsOf(owner.communityId)).toHaveLength(2);
      for (let i = 0; i < 3; i++) await post(short, owner.auth, randomUUID(), { content: `x${i}` });
      // the worker prunes expired answers in batches until none is left
      await waitFor('the answers to expire', async () => (await unexpired()) === 0);
      const deleted = await worker.context.get(IdempotencyRetention).prune(2);
      expect(deleted).toBeGreaterThanOrEqual(4);
      const left = await short.prisma.$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM idempotency_keys WHERE expires_at <= now()`;
      expect(left[0].n).toBe(0);
    } finally {
      await short.close();
    }
  });
});
