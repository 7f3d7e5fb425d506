// The TypeScript client against the real API and worker, started by ../../test-against-service.mjs
// (which sets CP_BASE_URL and a platform admin's login). The tests run in order and build on each other.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { after, before, test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { CommunityPlatformClient, CommunityPlatformError, verifyWebhook } from '../dist/esm/index.js';

const { CP_BASE_URL: baseUrl, CP_ADMIN_EMAIL: email, CP_ADMIN_PASSWORD: password } = process.env;
if (!baseUrl || !email || !password) {
  throw new Error(
    'Run through clients/test-against-service.mjs: CP_BASE_URL, CP_ADMIN_EMAIL, CP_ADMIN_PASSWORD are unset',
  );
}
const DELIVERY_TIMEOUT_MS = 30_000;
const runTag = Date.now().toString(36);

let admin; // a platform admin's client, logged in
let pro; // the PRO community (webhooks allowed)
let free; // the FREE community
let apiKey; // the PRO community's API key
let apiKeyClient; // a client with it
let receiver; // the local webhook receiver

/**
 * A webhook receiver on 127.0.0.1 that keeps every request's headers and raw body. A path in
 * `failing` is answered 500 until it is taken out.
 */
async function startReceiver() {
  const requests = [];
  const waiters = [];
  const failing = new Set();
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const status = failing.has(req.url) ? 500 : 204;
      const request = { headers: req.headers, rawBody: Buffer.concat(chunks), url: req.url, status };
      requests.push(request);
      res.writeHead(status).end();
      for (const waiter of waiters.splice(0)) waiter();
    });
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return {
    failing,
    url: (path) => `http://127.0.0.1:${server.address().port}${path}`,
    /** The first request matching `match`, waiting for it up to DELIVERY_TIMEOUT_MS. */
    async next(match) {
      const deadline = Date.now() + DELIVERY_TIMEOUT_MS;
      for (;;) {
        const found = requests.find(match);
        if (found) return found;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no matching delivery within ${DELIVERY_TIMEOUT_MS} ms`);
        await new Promise((done) => {
          const timer = setTimeout(done, left);
          waiters.push(() => (clearTimeout(timer), done()));
        });
      }
    },
    close: () => new Promise((done) => server.close(done)),
  };
}

/**
 * A proxy on 127.0.0.1 in front of the API that forwards each request and, for the first one `cut`
 * matches, waits for the API's whole answer (the write is committed) and then drops the client's
 * connection instead of relaying it: the client sees a network error after the service did the work.
 * Every forwarded request is kept with its Idempotency-Key and the answer's Idempotent-Replayed.
 */
async function startCuttingProxy(cut) {
  const forwarded = [];
  let cutDone = false;
  const target = new URL(baseUrl);
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const upstream = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: target.host, connection: 'close' },
        },
        (answer) => {
          const body = [];
          answer.on('data', (c) => body.push(c));
          answer.on('end', () => {
            const dropped = !cutDone && cut(req);
            cutDone ||= dropped;
            forwarded.push({
              method: req.method,
              path: req.url,
              key: req.headers['idempotency-key'],
              status: answer.statusCode,
              replayed: answer.headers['idempotent-replayed'],
              dropped,
            });
            if (dropped) return void req.socket.destroy();
            res.writeHead(answer.statusCode, answer.headers).end(Buffer.concat(body));
          });
        },
      );
      upstream.on('error', () => req.socket.destroy());
      upstream.end(Buffer.concat(chunks));
    });
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return {
    forwarded,
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((done) => server.close(done));
    },
  };
}

/** Polls `check` (a state the service writes after the receiver answered) until it gives a value. */
async function waitFor(what, check) {
  const deadline = Date.now() + DELIVERY_TIMEOUT_MS;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${DELIVERY_TIMEOUT_MS} ms`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

before(async () => {
  admin = new CommunityPlatformClient({ baseUrl });
  await admin.auth.login({ email, password });
  pro = await admin.admin.createCommunity({
    name: 'Clients Pro',
    slug: `clients-pro-${runTag}`,
    plan: 'PRO',
  });
  free = await admin.admin.createCommunity({
    name: 'Clients Free',
    slug: `clients-free-${runTag}`,
    plan: 'FREE',
  });
  apiKey = (await admin.admin.createApiKey({ name: 'client tests', communityId: pro.id })).key;
  apiKeyClient = new CommunityPlatformClient({ baseUrl, apiKey });
  receiver = await startReceiver();
});

after(async () => {
  await receiver?.close();
});

test('a base address ending in /api/v1 is refused at construction', async () => {
  assert.throws(() => new CommunityPlatformClient({ baseUrl: `${baseUrl}/api/v1` }), /ends in \/api\/v1/);
  // What the refusal spares the caller: the service has no versioned routes
  // (docs/product-decisions.md#8-limits-and-unmatched-paths).
  const res = await fetch(`${baseUrl}/api/v1/sdk/community`);
  assert.equal(res.status, 401);
});

test('the document the service serves is the committed openapi.json the types come from', async () => {
  const live = await (await fetch(`${baseUrl}/api/docs-json`)).json();
  const committed = JSON.parse(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8'));
  // The one part that differs by design: a running API names its own address as the server's default
  // (where Swagger UI's "Try it out" sends), the committed document the default configuration's.
  assert.equal(new URL(live.servers[0].variables.baseUrl.default).port, new URL(baseUrl).port);
  live.servers[0].variables.baseUrl.default = committed.servers[0].variables.baseUrl.default;
  assert.ok(
    isDeepStrictEqual(live, committed),
    'clients/typescript/openapi.json differs from /api/docs-json: run `npm run clients:generate` at the repository root',
  );
});

test('login, refresh, and renewal of an unusable access token through the refresh token', async () => {
  const issued = [];
  const user = new CommunityPlatformClient({ baseUrl, communityId: pro.id, onTokens: (t) => issued.push(t) });
  const first = await user.auth.login({ email, password, communityId: pro.id });
  assert.equal(first.tokenType, 'Bearer');
  const second = await user.auth.refresh();
  assert.notEqual(second.accessToken, first.accessToken);
  assert.equal((await user.admin.me()).user.email, email);

  // An access token the service refuses (401), with a live refresh token: renewed once, call repeated.
  const renewed = [];
  const stale = new CommunityPlatformClient({
    baseUrl,
    communityId: pro.id,
    accessToken: 'not-a-valid-token',
    refreshToken: second.refreshToken,
    onTokens: (t) => renewed.push(t),
  });
  assert.equal((await stale.community.get()).id, pro.id);
  assert.equal(renewed.length, 1);
  assert.equal(stale.tokens.accessToken, renewed[0].accessToken);
  assert.equal(issued.length, 2);

  // The refresh token is single use: the one just traded is refused.
  const reused = await user.auth.refreshToken(second.refreshToken).catch((err) => err);
  assert.ok(reused instanceof CommunityPlatformError);
  assert.equal(reused.status, 401);
});

test('community, with an API key and with a login token', async () => {
  const byKey = await apiKeyClient.community.get();
  assert.deepEqual([byKey.id, byKey.slug], [pro.id, pro.slug]);
  const byToken = await new CommunityPlatformClient({
    baseUrl,
    accessToken: admin.tokens.accessToken,
    communityId: free.slug,
  }).community.get();
  assert.equal(byToken.id, free.id);
});

test('a 45-tweet paging walk', async () => {
  for (let i = 1; i <= 45; i += 1) await apiKeyClient.tweets.create({ content: `tweet ${i}` });
  const pages = [];
  for await (const page of apiKeyClient.tweets.list({ limit: 10 }).pages()) pages.push(page);
  assert.deepEqual(
    pages.map((p) => [p.page, p.items.length, p.hasMore]),
    [
      [1, 10, true],
      [2, 10, true],
      [3, 10, true],
      [4, 10, true],
      [5, 5, false],
    ],
  );
  const contents = [];
  for await (const tweet of apiKeyClient.tweets.list({ limit: 10 })) contents.push(tweet.content);
  assert.deepEqual(
    contents,
    Array.from({ length: 45 }, (_, i) => `tweet ${45 - i}`),
  );
});

test('FEATURE_NOT_AVAILABLE carries its featureKey', async () => {
  const err = await admin.webhooks.list(free.id).catch((e) => e);
  assert.ok(err instanceof CommunityPlatformError);
  assert.deepEqual([err.status, err.code, err.featureKey], [403, 'FEATURE_NOT_AVAILABLE', 'webhooks']);
  assert.ok(err.requestId, 'the X-Request-Id of the answer');
});

let endpoint; // the receiver's endpoint in the PRO community

test('a real delivery, received locally and verified by the client', async () => {
  endpoint = await admin.webhooks.create(pro.id, { url: receiver.url('/hook'), events: ['tweet.created'] });
  assert.match(endpoint.secret, /^whsec_/);
  const tweet = await apiKeyClient.tweets.create({ content: 'delivered' });
  const delivery = await receiver.next((r) => r.url === '/hook' && r.rawBody.includes(tweet.id));
  const unrelated = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const event = verifyWebhook(delivery.headers, delivery.rawBody, [unrelated, endpoint.secret]);
  assert.equal(event.type, 'tweet.created');
  assert.equal(event.communityId, pro.id);
  assert.equal(event.id, delivery.headers['webhook-id']);
  assert.equal(event.data.tweet.id, tweet.id);
  assert.throws(() => verifyWebhook(delivery.headers, delivery.rawBody, [unrelated]), /No signature matches/);
});

test('after a rotation every live secret verifies the test delivery, which the delivery log lists', async () => {
  const rotated = await admin.webhooks.rotateSecret(pro.id, endpoint.id);
  const attempt = await admin.webhooks.test(pro.id, endpoint.id);
  assert.equal(attempt.status, 'SUCCESS');
  const delivery = await receiver.next((r) => r.headers['webhook-id'] === attempt.messageId);
  assert.equal(verifyWebhook(delivery.headers, delivery.rawBody, endpoint.secret).type, 'webhook.test');
  assert.equal(verifyWebhook(delivery.headers, delivery.rawBody, rotated.secret).type, 'webhook.test');
  const logged = [];
  for await (const d of admin.webhooks.deliveries(pro.id, endpoint.id, { limit: 1 })) logged.push(d);
  assert.ok(logged.some((d) => d.messageId === attempt.messageId && d.eventType === 'webhook.test'));
  assert.equal(new Set(logged.map((d) => d.id)).size, logged.length);
});

test('a failed delivery, resent, is received and logged as a success', async () => {
  receiver.failing.add('/flaky');
  const flaky = await admin.webhooks.create(pro.id, {
    url: receiver.url('/flaky'),
    events: ['comment.created'],
  });
  const tweet = await apiKeyClient.tweets.create({ content: 'to comment on' });
  const comment = await apiKeyClient.comments.create('tweets', tweet.id, { content: 'a comment' });
  await receiver.next((r) => r.url === '/flaky' && r.rawBody.includes(comment.id));
  const failed = await waitFor('the failed attempt in the delivery log', async () => {
    const page = await admin.webhooks.deliveriesPage(pro.id, flaky.id, { status: 'FAILED' });
    return page.items[0];
  });
  assert.deepEqual([failed.attempt, failed.eventType, failed.responseStatus], [1, 'comment.created', 500]);

  receiver.failing.delete('/flaky');
  const resent = await admin.webhooks.deliveries.resend(pro.id, flaky.id, failed.id);
  assert.deepEqual([resent.messageId, resent.status], [failed.messageId, 'PENDING']);
  assert.ok(resent.attempt > failed.attempt);
  const received = await receiver.next(
    (r) => r.url === '/flaky' && r.status === 204 && r.headers['webhook-id'] === failed.messageId,
  );
  const event = verifyWebhook(received.headers, received.rawBody, flaky.secret);
  assert.equal(event.type, 'comment.created');
  assert.equal(event.type === 'comment.created' && event.data.comment.id, comment.id);
  await waitFor('the resent attempt logged SUCCESS', async () => {
    for await (const d of admin.webhooks.deliveries(pro.id, flaky.id)) {
      if (d.id === resent.id && d.status === 'SUCCESS') return d;
    }
    return undefined;
  });
});

test('a 429 is retried after Retry-After to success', async () => {
  const retries = [];
  const client = new CommunityPlatformClient({
    baseUrl,
    accessToken: admin.tokens.accessToken,
    onRetry: (info) => retries.push(info),
  });
  // Webhook create allows a burst of 10 per caller and community (two used above), then 1 per 10 s.
  const body = (i) => ({ url: receiver.url(`/filler-${i}`), events: ['member.joined'] });
  for (let i = 3; i <= 10; i += 1) await client.webhooks.create(pro.id, body(i));
  assert.equal(retries.length, 0);
  const eleventh = await client.webhooks.create(pro.id, body(11));
  assert.ok(eleventh.id);
  assert.equal(retries.length, 1);
  assert.equal(retries[0].reason, 'rate-limited');
  assert.equal(retries[0].error.code, 'RATE_LIMITED');
  assert.ok(retries[0].delayMs > 0 && retries[0].delayMs <= 10_000, `waited ${retries[0].delayMs} ms`);
});

test('a network error injected on the first POST is retried with the same key and yields one tweet', async () => {
  const proxy = await startCuttingProxy((req) => req.method === 'POST' && req.url === '/api/sdk/tweets');
  try {
    const retries = [];
    const client = new CommunityPlatformClient({
      baseUrl: proxy.url,
      apiKey,
      retryBaseDelayMs: 1,
      onRetry: (info) => retries.push(info),
    });
    const content = `cut once ${runTag}`;
    const tweet = await client.tweets.create({ content });
    assert.equal(tweet.content, content);

    const [first, second, ...rest] = proxy.forwarded;
    assert.equal(rest.length, 0);
    // The service did the first request (201) and its answer was lost; the retry got that answer again.
    assert.deepEqual([first.status, first.dropped, first.replayed], [201, true, undefined]);
    assert.deepEqual([second.status, second.dropped, second.replayed], [201, false, 'true']);
    assert.ok(first.key, 'the client sent an Idempotency-Key');
    assert.equal(second.key, first.key);
    assert.deepEqual(
      retries.map((r) => [r.reason, r.idempotencyKey]),
      [['network', first.key]],
    );

    const found = [];
    for await (const t of apiKeyClient.tweets.list({ limit: 100 }))
      if (t.content === content) found.push(t.id);
    assert.deepEqual(found, [tweet.id]);
  } finally {
    await proxy.close();
  }
});
