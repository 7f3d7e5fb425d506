import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { CommunityPlatformClient, CommunityPlatformError } from '../dist/esm/index.js';
import { json, ok, recordingSleep, scriptedFetch } from './fake-fetch.mjs';

const BASE = 'https://community.example.com';

function client(fake, options = {}) {
  return new CommunityPlatformClient({ baseUrl: BASE, fetch: fake.fetch, ...options });
}

describe('base address', () => {
  it('refuses a base ending in /api/v1 at construction, saying what to give instead', () => {
    assert.throws(
      () => new CommunityPlatformClient({ baseUrl: `${BASE}/api/v1` }),
      (err) =>
        err instanceof TypeError &&
        /ends in \/api\/v1/.test(err.message) &&
        err.message.includes(`"${BASE}"`),
    );
    assert.throws(() => new CommunityPlatformClient({ baseUrl: `${BASE}/api/v2/` }), /ends in \/api\/v2/);
    assert.throws(() => new CommunityPlatformClient({ baseUrl: `${BASE}/api` }), /ends in \/api/);
    assert.throws(() => new CommunityPlatformClient({ baseUrl: 'community.example.com' }), /absolute/);
  });

  it('appends /api/ to the base, keeping a path prefix and dropping trailing slashes', async () => {
    const fake = scriptedFetch(ok({ id: 'c1', slug: 's' }), ok({ id: 'c1', slug: 's' }));
    await client(fake, { baseUrl: `${BASE}/` }).community.get();
    await client(fake, { baseUrl: `${BASE}/platform/` }).community.get();
    assert.deepEqual(
      fake.calls.map((c) => c.url),
      [`${BASE}/api/sdk/community`, `${BASE}/platform/api/sdk/community`],
    );
  });

  it('loads as CommonJS too', () => {
    const cjs = createRequire(import.meta.url)('../dist/cjs/index.js');
    assert.equal(typeof cjs.CommunityPlatformClient, 'function');
    assert.equal(typeof cjs.verifyWebhook, 'function');
  });
});

describe('authentication', () => {
  it('sends the API key on SDK routes, the login token on Bearer-only routes, and the tenant header', async () => {
    const fake = scriptedFetch(ok({ id: 'c1' }), ok({ items: [] }));
    const c = client(fake, { apiKey: 'cpk_k', accessToken: 'jwt', communityId: 'acme' });
    await c.community.get();
    await c.webhooks.list('c1');
    assert.equal(fake.calls[0].headers['x-api-key'], 'cpk_k');
    assert.equal(fake.calls[0].headers.authorization, undefined);
    assert.equal(fake.calls[0].headers['x-tenant-id'], 'acme');
    assert.equal(fake.calls[1].headers.authorization, 'Bearer jwt');
    assert.equal(fake.calls[1].headers['x-api-key'], undefined);
  });

  it('keeps the pair from login and hands it to onTokens', async () => {
    const pair = { accessToken: 'a1', refreshToken: 'r1', tokenType: 'Bearer', expiresIn: 60, user: {} };
    const fake = scriptedFetch(ok(pair), ok({ id: 'c1' }));
    const seen = [];
    const c = client(fake, { onTokens: (t) => seen.push(t) });
    await c.auth.login({ email: 'a@example.com', password: 'pw' });
    await c.community.get();
    assert.equal(fake.calls[0].headers.authorization, undefined);
    assert.deepEqual(JSON.parse(fake.calls[0].body), { email: 'a@example.com', password: 'pw' });
    assert.equal(fake.calls[1].headers.authorization, 'Bearer a1');
    assert.deepEqual(seen, [pair]);
  });

  it('renews the access token once on 401 with the refresh token and repeats the call', async () => {
    const pair = { accessToken: 'a2', refreshToken: 'r2', tokenType: 'Bearer', expiresIn: 60, user: {} };
    const unauthorized = () => json(401, { success: false, error: 'Token expired', code: 'UNAUTHORIZED' });
    const fake = scriptedFetch(unauthorized(), ok(pair), ok({ id: 'c1' }));
    const seen = [];
    const c = client(fake, { accessToken: 'a1', refreshToken: 'r1', onTokens: (t) => seen.push(t) });
    assert.deepEqual(await c.community.get(), { id: 'c1' });
    assert.equal(fake.calls[1].url, `${BASE}/api/auth/refresh-token`);
    assert.equal(fake.calls[1].headers.authorization, undefined);
    assert.deepEqual(JSON.parse(fake.calls[1].body), { refreshToken: 'r1' });
    assert.equal(fake.calls[2].headers.authorization, 'Bearer a2');
    assert.deepEqual(seen, [pair]);
    assert.deepEqual(c.tokens, { accessToken: 'a2', refreshToken: 'r2' });
  });

  it('renews at most once per call, and shares one renewal between concurrent 401s', async () => {
    const pair = { accessToken: 'a2', refreshToken: 'r2', tokenType: 'Bearer', expiresIn: 60, user: {} };
    const unauthorized = () => json(401, { success: false, error: 'no', code: 'UNAUTHORIZED' });
    const fake = scriptedFetch(unauthorized(), unauthorized(), ok(pair), unauthorized(), unauthorized());
    const c = client(fake, { accessToken: 'a1', refreshToken: 'r1' });
    const results = await Promise.allSettled([c.community.get(), c.tasks.get('t1')]);
    assert.equal(fake.calls.filter((call) => call.url.endsWith('/refresh-token')).length, 1);
    for (const r of results) assert.equal(r.reason.code, 'UNAUTHORIZED');
    assert.equal(fake.remaining(), 0);
  });

  it('does not try to renew an API-key call', async () => {
    const fake = scriptedFetch(json(401, { success: false, error: 'bad key', code: 'UNAUTHORIZED' }));
    const c = client(fake, { apiKey: 'cpk_k', refreshToken: 'r1' });
    await assert.rejects(c.community.get(), { status: 401 });
    assert.equal(fake.calls.length, 1);
  });
});

describe('errors', () => {
  it('carries status, code, featureKey, details, retryAfter and requestId', async () => {
    const fake = scriptedFetch(
      json(
        403,
        {
          success: false,
          error: 'Plan lacks webhooks',
          code: 'FEATURE_NOT_AVAILABLE',
          featureKey: 'webhooks',
        },
        { 'x-request-id': 'req-1' },
      ),
      json(400, {
        success: false,
        error: 'content: too long',
        code: 'VALIDATION_ERROR',
        details: [{ field: 'content', message: 'too long' }],
      }),
    );
    const c = client(fake, { accessToken: 't' });
    const denied = await c.webhooks.list('c1').catch((err) => err);
    assert.ok(denied instanceof CommunityPlatformError);
    assert.equal(denied.name, 'CommunityPlatformError');
    assert.equal(denied.message, 'Plan lacks webhooks');
    assert.deepEqual(
      [denied.status, denied.code, denied.featureKey, denied.requestId],
      [403, 'FEATURE_NOT_AVAILABLE', 'webhooks', 'req-1'],
    );
    const invalid = await c.tweets.create({ content: 'x' }).catch((err) => err);
    assert.deepEqual(invalid.details, [{ field: 'content', message: 'too long' }]);
  });

  it('turns a failure before any answer into NETWORK_ERROR with status 0', async () => {
    const fake = scriptedFetch(new TypeError('fetch failed'));
    const err = await client(fake, { maxRetries: 0 })
      .community.get()
      .catch((e) => e);
    assert.ok(err instanceof CommunityPlatformError);
    assert.deepEqual([err.status, err.code], [0, 'NETWORK_ERROR']);
    assert.equal(err.cause.message, 'fetch failed');
  });
});

describe('retries', () => {
  const rateLimited = (seconds) =>
    json(
      429,
      { success: false, error: 'slow down', code: 'RATE_LIMITED', retryAfter: seconds },
      { 'retry-after': String(seconds) },
    );

  it('retries a 429 after Retry-After, on any method', async () => {
    const { delays, sleep } = recordingSleep();
    const retries = [];
    const fake = scriptedFetch(rateLimited(3), ok({ id: 'w1', secret: 'whsec_x' }, 201));
    const c = client(fake, { accessToken: 't', sleep, onRetry: (info) => retries.push(info.reason) });
    assert.equal((await c.webhooks.create('c1', { url: 'https://x', events: ['tweet.created'] })).id, 'w1');
    assert.deepEqual(delays, [3000]);
    assert.deepEqual(retries, ['rate-limited']);
    assert.equal(fake.calls[1].body, fake.calls[0].body);
  });

  it('reads Retry-After from the header when the body has none', async () => {
    const { delays, sleep } = recordingSleep();
    const fake = scriptedFetch(json(429, { error: 'slow' }, { 'retry-after': '2' }), ok({}));
    await client(fake, { sleep }).community.get();
    assert.deepEqual(delays, [2000]);
  });

  it('gives up after maxRetries and when Retry-After is beyond maxRetryDelayMs', async () => {
    const { delays, sleep } = recordingSleep();
    const fake = scriptedFetch(rateLimited(1), rateLimited(1), rateLimited(1));
    const err = await client(fake, { sleep, maxRetries: 2 })
      .community.get()
      .catch((e) => e);
    assert.deepEqual([err.status, err.code, err.retryAfter], [429, 'RATE_LIMITED', 1]);
    assert.deepEqual(delays, [1000, 1000]);

    const long = scriptedFetch(rateLimited(120));
    const err2 = await client(long, { sleep, maxRetryDelayMs: 60_000 })
      .community.get()
      .catch((e) => e);
    assert.equal(err2.retryAfter, 120);
    assert.equal(long.calls.length, 1);
  });

  it('retries network errors of idempotent calls with doubling delays, never of a POST without a key', async () => {
    const { delays, sleep } = recordingSleep();
    const fake = scriptedFetch(
      new TypeError('fetch failed'),
      new TypeError('fetch failed'),
      ok({ id: 'c1' }),
    );
    assert.deepEqual(await client(fake, { sleep, retryBaseDelayMs: 100 }).community.get(), { id: 'c1' });
    assert.deepEqual(delays, [100, 200]);

    // A POST without an Idempotency-Key (the auth routes take none) may have been done: not sent again.
    const post = scriptedFetch(new TypeError('fetch failed'));
    const err = await client(post, { sleep })
      .auth.login({ email: 'a@example.com', password: 'pw' })
      .catch((e) => e);
    assert.equal(err.code, 'NETWORK_ERROR');
    assert.equal(post.calls.length, 1);
  });
});

describe('pagination', () => {
  const tweets = Array.from({ length: 45 }, (_, i) => ({ id: `t${i}` }));
  const pageOf = (url) => {
    const q = new URL(url).searchParams;
    const page = Number(q.get('page'));
    const limit = Number(q.get('limit') ?? 20);
    const items = tweets.slice((page - 1) * limit, page * limit);
    return ok({ items, page, limit, total: tweets.length, hasMore: page * limit < tweets.length });
  };

  it('walks every page of an /api/sdk list lazily', async () => {
    const fake = scriptedFetch(pageOf, pageOf, pageOf);
    const list = client(fake).tweets.list({ limit: 20 });
    assert.equal(fake.calls.length, 0);
    const seen = [];
    for await (const tweet of list) seen.push(tweet.id);
    assert.deepEqual(
      seen,
      tweets.map((t) => t.id),
    );
    assert.deepEqual(
      fake.calls.map((c) => new URL(c.url).search),
      ['?limit=20&page=1', '?limit=20&page=2', '?limit=20&page=3'],
    );
  });

  it('stops early when the caller breaks, and pages() yields whole pages', async () => {
    const fake = scriptedFetch(pageOf, pageOf, pageOf);
    const c = client(fake, { maxRetries: 0 });
    for await (const tweet of c.tweets.list({ limit: 10 })) if (tweet.id === 't3') break;
    assert.equal(fake.calls.length, 1);
    const sizes = [];
    for await (const page of c.tweets.list({ limit: 40 }).pages()) sizes.push(page.items.length);
    assert.deepEqual(sizes, [40, 5]);
    assert.equal(fake.remaining(), 0);
  });

  it('walks the delivery log by offset', async () => {
    const attempts = Array.from({ length: 5 }, (_, i) => ({ id: `d${i}` }));
    const byOffset = (url) => {
      const q = new URL(url).searchParams;
      const offset = Number(q.get('offset'));
      const limit = Number(q.get('limit'));
      return ok({
        items: attempts.slice(offset, offset + limit),
        limit,
        offset,
        total: 5,
        hasMore: offset + limit < 5,
      });
    };
    const fake = scriptedFetch(byOffset, byOffset, byOffset);
    const ids = await client(fake, { accessToken: 't' })
      .webhooks.deliveries('c1', 'w1', { limit: 2, status: 'FAILED' })
      .toArray();
    assert.deepEqual(
      ids.map((d) => d.id),
      ['d0', 'd1', 'd2', 'd3', 'd4'],
    );
    assert.deepEqual(
      fake.calls.map((c) => new URL(c.url).search),
      [
        '?limit=2&status=FAILED&offset=0',
        '?limit=2&status=FAILED&offset=2',
        '?limit=2&status=FAILED&offset=4',
      ],
    );
  });
});

describe('delivery resend and recover', () => {
  it('resends one delivery with a login token and answers the new attempt', async () => {
    const attempt = { id: 'd2', messageId: 'msg_1', attempt: 2, status: 'PENDING' };
    const fake = scriptedFetch(ok(attempt, 202));
    const c = client(fake, { apiKey: 'cpk_k', accessToken: 'jwt' });
    assert.deepEqual(await c.webhooks.deliveries.resend('c 1', 'w1', 'd1'), attempt);
    const [call] = fake.calls;
    assert.equal(call.method, 'POST');
    assert.equal(call.url, `${BASE}/api/communities/c%201/webhooks/w1/deliveries/d1/resend`);
    assert.equal(call.headers.authorization, 'Bearer jwt');
    assert.equal(call.headers['x-api-key'], undefined);
    assert.deepEqual(JSON.parse(call.body), {});
  });

  it('keeps deliveries() a list beside its resend helper', async () => {
    const fake = scriptedFetch(ok({ items: [{ id: 'd1' }], limit: 50, offset: 0, total: 1, hasMore: false }));
    const c = client(fake, { accessToken: 'jwt' });
    assert.equal(typeof c.webhooks.deliveries.resend, 'function');
    assert.deepEqual(await c.webhooks.deliveries('c1', 'w1').toArray(), [{ id: 'd1' }]);
  });

  it('recovers a window given as dates or ISO strings, leaving out an open end', async () => {
    const fake = scriptedFetch(ok({ queued: 3, remaining: 0 }, 202), ok({ queued: 0, remaining: 0 }, 202));
    const c = client(fake, { accessToken: 'jwt' });
    const since = new Date('2026-11-20T00:00:00Z');
    assert.deepEqual(await c.webhooks.recover('c1', 'w1', { since }), { queued: 3, remaining: 0 });
    await c.webhooks.recover('c1', 'w1', {
      since: '2026-11-20T00:00:00Z',
      until: new Date('2026-11-21T00:00:00Z'),
    });
    assert.equal(fake.calls[0].url, `${BASE}/api/communities/c1/webhooks/w1/recover`);
    assert.deepEqual(JSON.parse(fake.calls[0].body), { since: '2026-11-20T00:00:00.000Z' });
    assert.deepEqual(JSON.parse(fake.calls[1].body), {
      since: '2026-11-20T00:00:00Z',
      until: '2026-11-21T00:00:00.000Z',
    });
  });

  it('recovers missed events when include says so, and sends no include when none is given', async () => {
    const answer = { queued: 10, remaining: 0, expired: 2 };
    const fake = scriptedFetch(ok(answer, 202));
    const c = client(fake, { accessToken: 'jwt' });
    const since = new Date('2026-11-20T00:00:00Z');
    assert.deepEqual(await c.webhooks.recover('c1', 'w1', { since, include: ['failed', 'missed'] }), answer);
    assert.deepEqual(JSON.parse(fake.calls[0].body), {
      since: '2026-11-20T00:00:00.000Z',
      include: ['failed', 'missed'],
    });
  });
});
