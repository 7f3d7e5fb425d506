// Idempotency-Key on writes, against a real HTTP server on 127.0.0.1 that can cut a connection after
// reading a request (the service did the write, the client saw no answer).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, beforeEach, describe, it } from 'node:test';
import { CommunityPlatformClient, CommunityPlatformError } from '../dist/esm/index.js';
import { recordingSleep } from './fake-fetch.mjs';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const DROP = 'drop';
const keyInUse = (retryAfter = '1') => ({
  status: 409,
  body: { success: false, error: 'A request with this key is still running', code: 'IDEMPOTENCY_KEY_IN_USE' },
  headers: { 'retry-after': retryAfter },
});

let server;
let base;
let plan; // what the next requests get, in order (DROP, or { status, body, headers }); then 201
let received;

before(async () => {
  server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      received.push({
        method: req.method,
        path: req.url,
        key: req.headers['idempotency-key'],
        body: text ? JSON.parse(text) : undefined,
      });
      const next = plan.shift() ?? { status: 201, body: { success: true, data: { id: 't1' } } };
      // The request was read in full (the service would have done the write); no answer comes.
      if (next === DROP) return void req.socket.destroy();
      res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
      res.end(JSON.stringify(next.body));
    });
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${server.address().port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});

describe('idempotent writes', () => {
  let waits;
  let retries;
  beforeEach(() => {
    plan = [];
    received = [];
    waits = recordingSleep();
    retries = [];
  });
  const client = (options = {}) =>
    new CommunityPlatformClient({
      baseUrl: base,
      apiKey: 'cpk_k',
      sleep: waits.sleep,
      onRetry: (info) => retries.push(info),
      ...options,
    });
  const createTweet = (c, content, idempotencyKey) =>
    c.tweets.create({ content }, idempotencyKey === undefined ? undefined : { idempotencyKey });

  it('retries a POST cut after its request with the same key', async () => {
    plan = [DROP];
    assert.deepEqual(await createTweet(client({ retryBaseDelayMs: 250 }), 'hello'), { id: 't1' });
    const [first, second] = received;
    assert.equal(received.length, 2);
    assert.deepEqual(
      [first.method, first.path, first.body],
      ['POST', '/api/sdk/tweets', { content: 'hello' }],
    );
    assert.deepEqual(second, first);
    assert.match(first.key, UUID_V4);
    assert.deepEqual(
      retries.map((r) => [r.reason, r.retry, r.error.code, r.idempotencyKey]),
      [['network', 1, 'NETWORK_ERROR', first.key]],
    );
    assert.deepEqual(waits.delays, [250]);
  });

  it("sends the caller's key verbatim on every attempt", async () => {
    plan = [DROP, DROP];
    await createTweet(client(), 'hello', 'order-42/attempt:1');
    assert.deepEqual(
      received.map((r) => r.key),
      ['order-42/attempt:1', 'order-42/attempt:1', 'order-42/attempt:1'],
    );
  });

  it('gives each call a fresh key', async () => {
    const c = client();
    for (let i = 0; i < 3; i += 1) await createTweet(c, 'same body');
    const keys = received.map((r) => r.key);
    assert.equal(new Set(keys).size, 3);
    for (const key of keys) assert.match(key, UUID_V4);
  });

  it('retries a network error at most maxRetries times; the error carries the key', async () => {
    plan = [DROP, DROP, DROP];
    const err = await createTweet(client({ maxRetries: 2 }), 'hello', 'k-1').catch((e) => e);
    assert.ok(err instanceof CommunityPlatformError);
    assert.deepEqual([err.code, err.idempotencyKey], ['NETWORK_ERROR', 'k-1']);
    assert.equal(received.length, 3);
  });

  it('retries 409 IDEMPOTENCY_KEY_IN_USE after its Retry-After, then gets the answer', async () => {
    plan = [DROP, keyInUse()];
    assert.deepEqual(await createTweet(client({ retryBaseDelayMs: 250 }), 'hello'), { id: 't1' });
    assert.equal(new Set(received.map((r) => r.key)).size, 1);
    assert.deepEqual(
      retries.map((r) => r.reason),
      ['network', 'key-in-use'],
    );
    assert.deepEqual(waits.delays, [250, 1000]);
  });

  it('bounds the IDEMPOTENCY_KEY_IN_USE retries, and waits no longer than maxRetryDelayMs', async () => {
    plan = [keyInUse(), keyInUse(), keyInUse()];
    const err = await createTweet(client({ maxRetries: 2 }), 'hello', 'k-2').catch((e) => e);
    assert.deepEqual(
      [err.status, err.code, err.retryAfter, err.idempotencyKey],
      [409, 'IDEMPOTENCY_KEY_IN_USE', 1, 'k-2'],
    );
    assert.equal(received.length, 3);
    assert.deepEqual(waits.delays, [1000, 1000]);

    plan = [keyInUse('5')];
    await assert.rejects(createTweet(client({ maxRetryDelayMs: 2000 }), 'hello'), {
      code: 'IDEMPOTENCY_KEY_IN_USE',
    });
    assert.equal(received.length, 4);
  });

  it('does not retry IDEMPOTENCY_KEY_REUSED, nor a 409 of another kind', async () => {
    plan = [
      {
        status: 422,
        body: { success: false, error: 'key used for another request', code: 'IDEMPOTENCY_KEY_REUSED' },
      },
      {
        status: 409,
        body: { success: false, error: 'paused', code: 'CONFLICT' },
        headers: { 'retry-after': '1' },
      },
    ];
    await assert.rejects(createTweet(client(), 'other body', 'k-3'), { status: 422 });
    await assert.rejects(createTweet(client(), 'hello'), { code: 'CONFLICT' });
    assert.equal(received.length, 2);
    assert.deepEqual(retries, []);
  });

  it('sends the key on PUT, PATCH and DELETE too, and on the hand-written wrappers', async () => {
    const c = client({ accessToken: 't' });
    await c.customization.replaceSidebar({ items: [] }, { idempotencyKey: 'put-1' });
    await c.tweets.update('t1', { content: 'edited' }, { idempotencyKey: 'patch-1' });
    await c.tweets.delete('t1', { idempotencyKey: 'delete-1' });
    await c.members.setRole('m1', 'ADMIN', { idempotencyKey: 'role-1' });
    await c.webhooks.recover('c1', 'w1', { since: new Date(0) }, { idempotencyKey: 'recover-1' });
    await c.webhooks.rotateSecret('c1', 'w1');
    assert.deepEqual(
      received.map((r) => [r.method, r.key]),
      [
        ['PUT', 'put-1'],
        ['PATCH', 'patch-1'],
        ['DELETE', 'delete-1'],
        ['PATCH', 'role-1'],
        ['POST', 'recover-1'],
        ['POST', received[5].key],
      ],
    );
    assert.match(received[5].key, UUID_V4);
  });

  it('sends no key on a GET, which keeps its network retries', async () => {
    plan = [DROP, { status: 200, body: { success: true, data: { id: 'c1' } } }];
    assert.deepEqual(await client().community.get(), { id: 'c1' });
    assert.deepEqual(
      received.map((r) => [r.method, r.key]),
      [
        ['GET', undefined],
        ['GET', undefined],
      ],
    );
  });

  it('sends no key on an auth POST or the portal exchange, and does not send them again after a network error', async () => {
    plan = [DROP, DROP];
    await assert.rejects(client().webhooks.openPortalSession('tok'), { code: 'NETWORK_ERROR' });
    received.shift();
    const err = await client()
      .auth.login({ email: 'a@example.com', password: 'pw' })
      .catch((e) => e);
    assert.deepEqual([err.code, err.idempotencyKey], ['NETWORK_ERROR', undefined]);
    assert.deepEqual(
      received.map((r) => [r.path, r.key]),
      [['/api/auth/login', undefined]],
    );
    assert.deepEqual(retries, []);
  });
});
