import { randomUUID } from 'node:crypto';
import { IdempotencyKeysStore } from '../../src/modules/idempotency/idempotency-keys.store';
import { createTestApp, TestApp } from '../utils/app';
import { memberCaller, memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';

/** A keyed request's answer as sent: status, replay header and the body's exact text. */
async function send(
  t: TestApp,
  method: 'POST' | 'DELETE',
  url: string,
  token: string,
  key: string,
  body?: unknown,
) {
  const response = await t.app.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${token}`,
      'idempotency-key': key,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });
  return {
    status: response.statusCode,
    replayed: response.headers['idempotent-replayed'],
    text: response.body,
  };
}

/** Every answer the community's callers keep, each whole row as PostgreSQL prints it (bytea in hex). */
async function rowsOf(t: TestApp, communityId: string): Promise<string[]> {
  const { rows } = await t.prisma.pool.query<{ row: string }>(
    `SELECT k::text AS row FROM idempotency_keys k WHERE caller LIKE '%@' || $1`,
    [communityId],
  );
  return rows.map((r) => r.row);
}

/** The `data` of an answer that shows a secret: the secret is one of its strings. */
type AnswerData = Record<string, string>;

/** The answers this file's app keeps per caller. */
const CAP = 5;

/** docs/idempotency.md#storage and docs/security.md#secrets-at-rest */
describe('answers kept under Idempotency-Keys', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({
      WEBHOOK_ALLOW_INSECURE_TARGETS: 'true',
      IDEMPOTENCY_KEYS_PER_CALLER: String(CAP),
    });
  });
  afterAll(() => t?.close());

  it('are sealed: no secret an answer shows once is readable in the table, and a replay is byte for byte', async () => {
    const owner = await memberWithToken(t.app, { plan: 'ENTERPRISE' });
    const community = owner.community.id;
    const hooks = `/api/communities/${community}/webhooks`;
    const keyed: { method: 'POST'; url: string; body?: unknown; secret: (data: AnswerData) => string }[] = [
      {
        method: 'POST',
        url: hooks,
        body: { url: `http://127.0.0.1:9/${unique('hook')}`, events: ['tweet.created'] },
        secret: (data) => data.secret,
      },
      {
        method: 'POST',
        url: '/api/admin/sdk/api-keys',
        body: { name: 'sealed' },
        secret: (data) => data.key,
      },
      {
        method: 'POST',
        url: `${hooks}/portal-links`,
        secret: (data) => /#token=(.+)$/.exec(data.url)![1],
      },
      { method: 'POST', url: '/api/embed/sessions', body: {}, secret: (data) => data.token },
    ];
    const answers: { request: (typeof keyed)[number]; key: string; text: string; secret: string }[] = [];
    for (const request of keyed) {
      const key = randomUUID();
      const first = await send(t, request.method, request.url, owner.token, key, request.body);
      expect({ url: request.url, status: first.status }).toEqual({ url: request.url, status: 201 });
      answers.push({ request, key, text: first.text, secret: request.secret(JSON.parse(first.text).data) });
    }
    // the endpoint's rotated secret, under a key of its own
    const endpointId = JSON.parse(answers[0].text).data.id as string;
    const rotate = {
      method: 'POST' as const,
      url: `${hooks}/${endpointId}/rotate-secret`,
      secret: (data: AnswerData) => data.secret,
    };
    const rotateKey = randomUUID();
    const rotated = await send(t, 'POST', rotate.url, owner.token, rotateKey);
    expect(rotated.status).toBe(200);
    answers.push({
      request: rotate,
      key: rotateKey,
      text: rotated.text,
      secret: JSON.parse(rotated.text).data.secret,
    });

    expect(answers.map((a) => a.secret)).toEqual([
      expect.stringMatching(/^whsec_/),
      expect.stringMatching(/^cpk_/),
      expect.any(String),
      expect.stringMatching(/^ey/),
      expect.stringMatching(/^whsec_/),
    ]);
    const rows = (await rowsOf(t, community)).join('\n');
    expect(rows.split('\n')).toHaveLength(answers.length);
    for (const { secret } of answers) {
      expect(rows).not.toContain(secret);
      expect(rows).not.toContain(Buffer.from(secret).toString('hex'));
    }
    // nor any other part of an answer: every body is sealed, whatever its route
    expect(rows).not.toContain(Buffer.from('"success"').toString('hex'));
    const { rows: inClear } = await t.prisma.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM idempotency_keys
        WHERE caller LIKE '%@' || $1 AND (response_body IS NOT NULL OR key_id IS NULL)`,
      [community],
    );
    expect(inClear[0].n).toBe(0);

    for (const { request, key, text } of answers) {
      const again = await send(t, request.method, request.url, owner.token, key, request.body);
      expect({ url: request.url, replayed: again.replayed }).toEqual({ url: request.url, replayed: 'true' });
      expect(again.text).toBe(text);
    }
  });

  it('are kept IDEMPOTENCY_KEYS_PER_CALLER per caller, the oldest dropped first', async () => {
    const caller = await memberCaller(t.app, 'jwt');
    const token = caller.auth.token!;
    const keys = Array.from({ length: CAP + 2 }, () => randomUUID());
    const texts: string[] = [];
    for (const [i, key] of keys.entries())
      texts.push((await send(t, 'POST', '/api/sdk/tweets', token, key, { content: `tweet ${i}` })).text);
    expect(await rowsOf(t, caller.communityId)).toHaveLength(CAP);
    const tweets = () => t.prisma.tweet.count({ where: { communityId: caller.communityId } });
    expect(await tweets()).toBe(CAP + 2);

    // the CAP newest are replayed; the oldest two were dropped, so their keys run anew
    for (let i = 2; i < keys.length; i++) {
      const again = await send(t, 'POST', '/api/sdk/tweets', token, keys[i], { content: `tweet ${i}` });
      expect({ i, replayed: again.replayed, same: again.text === texts[i] }).toEqual({
        i,
        replayed: 'true',
        same: true,
      });
    }
    const first = await send(t, 'POST', '/api/sdk/tweets', token, keys[0], { content: 'tweet 0' });
    expect(first.status).toBe(201);
    expect(first.replayed).toBeUndefined();
    expect(await tweets()).toBe(CAP + 3);
    expect(await rowsOf(t, caller.communityId)).toHaveLength(CAP);

    // another caller of the same community counts apart
    const other = await memberCaller(t.app, 'apiKey', { communityId: caller.communityId });
    for (const i of [1, 2, 3])
      await call(t.app, 'POST', '/api/sdk/tweets', {
        ...other.auth,
        headers: { 'idempotency-key': randomUUID() },
        body: { content: `other ${i}` },
      });
    expect(await rowsOf(t, caller.communityId)).toHaveLength(CAP + 3);
    const newest = keys.length - 1;
    const replay = await send(t, 'POST', '/api/sdk/tweets', token, keys[newest], {
      content: `tweet ${newest}`,
    });
    expect(replay.replayed).toBe('true');
  });

  it("a caller none of whose answers is left is forgotten by the worker's pruning, and counts from 1 again", async () => {
    const caller = await memberCaller(t.app, 'jwt');
    await send(t, 'POST', '/api/sdk/tweets', caller.auth.token!, randomUUID(), { content: 'counted' });
    const countOf = async () => {
      const { rows } = await t.prisma.pool.query<{ kept: string }>(
        `SELECT kept FROM idempotency_callers WHERE caller LIKE '%@' || $1`,
        [caller.communityId],
      );
      return rows.map((row) => Number(row.kept));
    };
    expect(await countOf()).toEqual([1]);
    const store = t.app.get(IdempotencyKeysStore);
    // its last answer is still within the TTL: kept
    await store.pruneIdleCallers(60_000, 1_000);
    expect(await countOf()).toEqual([1]);
    // its last answer kept a day ago: past the TTL, so every answer of its has expired
    await t.prisma.pool.query(
      `UPDATE idempotency_callers SET last_kept_at = now() - interval '1 day' WHERE caller LIKE '%@' || $1`,
      [caller.communityId],
    );
    expect(await store.pruneIdleCallers(60_000, 1_000)).toBeGreaterThanOrEqual(1);
    expect(await countOf()).toEqual([]);
    await send(t, 'POST', '/api/sdk/tweets', caller.auth.token!, randomUUID(), { content: 'counted again' });
    expect(await countOf()).toEqual([1]);
  });
});
