import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { MAX_VALIDATION_DETAILS } from '../../src/common/errors/app-error';
import { MAX_KEYS_PER_BODY, MAX_KEYS_PER_OBJECT } from '../../src/common/http/input-safety';
import { createTestApp, TestApp } from '../utils/app';
import { memberWithToken } from '../utils/factories';
import { call } from '../utils/http';

/**
 * The bounds on a request's shape (docs/product-decisions.md#8-limits-and-unmatched-paths): how many
 * fields a body and a query string may have, how many problems one answer lists, which content types
 * are read, and the field names class-validator cannot tell from declared ones. Each limit is what
 * keeps one hostile request from stalling every other caller: these tests send the bodies that did.
 */

const fields = (count: number, prefix = 'k') =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}${i}`, 1]));

describe('request shape limits', () => {
  let t: TestApp;
  let base: string;
  let owner: Awaited<ReturnType<typeof memberWithToken>>;

  beforeAll(async () => {
    t = await createTestApp();
    // a real socket: a stall shows as a health check that waits behind the hostile request
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    owner = await memberWithToken(t.app, { plan: 'ENTERPRISE', role: 'OWNER' });
  });
  afterAll(() => t.close());

  /**
   * The slowest a health check may be while a hostile body is handled beside it. Before bodies were
   * bounded, it waited seconds behind one; one that waits behind nothing stays well under half a
   * second even on a loaded CI machine, so this bound tells the two apart.
   */
  const HEALTH_BESIDE_MS = 500;

  /**
   * Sends `body` as JSON and, until it is answered, health checks one after another: the answer, its
   * size and time, and the slowest health check.
   */
  async function sendBesideHealthChecks(path: string, body: string, headers: Record<string, string> = {}) {
    let answered = false;
    const started = performance.now();
    const hostile = fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    }).then(async (res) => {
      const text = await res.text();
      answered = true;
      return { status: res.status, text, ms: performance.now() - started };
    });
    let slowestHealthMs = 0;
    let healthChecks = 0;
    while (!answered) {
      const before = performance.now();
      const res = await fetch(`${base}/api/health/live`);
      await res.arrayBuffer();
      expect(res.status).toBe(200);
      slowestHealthMs = Math.max(slowestHealthMs, performance.now() - before);
      healthChecks++;
    }
    return { ...(await hostile), slowestHealthMs, healthChecks };
  }

  it('refuses 110,000 fields to the unauthenticated portal exchange at once, and health keeps answering', async () => {
    const body = JSON.stringify(fields(110_000));
    expect(body.length).toBeGreaterThan(900_000);
    const res = await sendBesideHealthChecks('/api/webhooks/portal-sessions', body);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text)).toMatchObject({ success: false, code: 'PAYLOAD_TOO_LARGE' });
    expect(res.text.length).toBeLessThan(1_000);
    expect(res.ms).toBeLessThan(1_000);
    expect(res.slowestHealthMs).toBeLessThan(HEALTH_BESIDE_MS);
  });

  it('refuses 40,000 fields with a login token, naming the limit, not the fields', async () => {
    const body = JSON.stringify({ content: 'hello', ...fields(40_000) });
    const res = await sendBesideHealthChecks('/api/sdk/tweets', body, {
      authorization: `Bearer ${owner.token}`,
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({
      success: false,
      code: 'VALIDATION_ERROR',
      error: `A JSON object has more than ${MAX_KEYS_PER_OBJECT} fields`,
      details: [{ field: 'body', message: `A JSON object has more than ${MAX_KEYS_PER_OBJECT} fields` }],
    });
    expect(res.ms).toBeLessThan(1_000);
    expect(res.slowestHealthMs).toBeLessThan(HEALTH_BESIDE_MS);
  });

  it('refuses a 1 MiB body of many small objects (the body-wide count) as quickly', async () => {
    const members = Array.from({ length: 20_000 }, (_, i) => ({ email: `m${i}@example.test`, x: 1 }));
    const body = JSON.stringify({ members });
    expect(body.length).toBeLessThan(1024 * 1024);
    const res = await sendBesideHealthChecks('/api/sdk/members/bulk', body, {
      authorization: `Bearer ${owner.token}`,
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error).toMatch(/^The JSON body has more than \d+ fields in all$/);
    expect(res.slowestHealthMs).toBeLessThan(HEALTH_BESIDE_MS);
  });

  it(`refuses more than ${MAX_KEYS_PER_BODY} fields in a body, except where a route raises it (bulk members)`, async () => {
    const spread = { items: Array.from({ length: MAX_KEYS_PER_BODY / 10 }, () => fields(10)) };
    const tweets = await call(t.app, 'POST', '/api/sdk/tweets', { token: owner.token, body: spread });
    expect(tweets.status).toBe(400);
    expect(tweets.body.error).toBe(`The JSON body has more than ${MAX_KEYS_PER_BODY} fields in all`);

    // the largest valid bulk body: 1,000 entries of three fields each
    const members = Array.from({ length: 1_000 }, (_, i) => ({
      email: `bulk-${i}-${owner.community.id}@example.test`,
      name: `Bulk ${i}`,
      role: 'MEMBER',
    }));
    const bulk = await call(t.app, 'POST', '/api/sdk/members/bulk', {
      token: owner.token,
      body: { members },
    });
    expect(bulk.status).toBe(200);
    expect(bulk.body.data.created).toBe(1_000);
  });

  it(`refuses a query string of more than ${MAX_KEYS_PER_OBJECT} parameters before anything else`, async () => {
    const query = fields(MAX_KEYS_PER_OBJECT + 1, 'p');
    const res = await call(t.app, 'GET', '/api/sdk/tweets', { query });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      code: 'VALIDATION_ERROR',
      error: `The query string has more than ${MAX_KEYS_PER_OBJECT} parameters`,
      details: [
        { field: 'query', message: `The query string has more than ${MAX_KEYS_PER_OBJECT} parameters` },
      ],
    });
  });

  it(`lists at most ${MAX_VALIDATION_DETAILS} problems and says how many more`, async () => {
    const res = await call(t.app, 'POST', '/api/sdk/tweets', {
      token: owner.token,
      body: { content: 'hello', ...fields(150) },
    });
    expect(res.status).toBe(400);
    expect(res.body.details).toHaveLength(MAX_VALIDATION_DETAILS);
    expect(res.body.details[0]).toEqual({ field: 'k0', message: 'k0 is not a known field' });
    expect(res.body.detailsOmitted).toBe(150 - MAX_VALIDATION_DETAILS);
    expect(res.body.error).toMatch(new RegExp(`; and ${150 - MAX_VALIDATION_DETAILS} more$`));
  });

  describe('JSON only', () => {
    it.each([
      ['application/x-www-form-urlencoded', 'content=from+a+form'],
      ['text/plain', '{"content":"as text"}'],
      [
        'multipart/form-data; boundary=x',
        '--x\r\nContent-Disposition: form-data; name="content"\r\n\r\nhi\r\n--x--',
      ],
      ['application/xml', '<content>hi</content>'],
    ])('refuses %s with 415 and writes nothing', async (contentType, body) => {
      const before = await t.prisma.tweet.count({ where: { communityId: owner.community.id } });
      const res = await call(t.app, 'POST', '/api/sdk/tweets', {
        token: owner.token,
        headers: { 'content-type': contentType },
        body,
      });
      expect(res.status).toBe(415);
      expect(res.body).toMatchObject({ success: false, code: 'UNSUPPORTED_MEDIA_TYPE' });
      expect(await t.prisma.tweet.count({ where: { communityId: owner.community.id } })).toBe(before);
    });

    it('still takes JSON with a charset, and body-less writes', async () => {
      const created = await call(t.app, 'POST', '/api/sdk/tweets', {
        token: owner.token,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: { content: 'with a charset' },
      });
      expect(created.status).toBe(201);
      const deleted = await call(t.app, 'DELETE', `/api/sdk/tweets/${created.body.data.id}`, {
        token: owner.token,
      });
      expect(deleted.status).toBe(200);
    });
  });

  describe('field names of Object.prototype are unknown fields', () => {
    const names = [
      'constructor',
      'hasOwnProperty',
      'toString',
      'valueOf',
      'isPrototypeOf',
      '__defineGetter__',
    ];

    it.each(names)('%s in a body', async (name) => {
      const res = await call(t.app, 'POST', '/api/sdk/tweets', {
        token: owner.token,
        body: `{"content":"hello","${name}":1}`,
      });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([{ field: name, message: `${name} is not a known field` }]);
    });

    it.each(names)('%s in a nested body object', async (name) => {
      const res = await call(t.app, 'POST', '/api/sdk/members/bulk', {
        token: owner.token,
        body: `{"members":[{"email":"proto-${name}@example.test","${name}":"x"}]}`,
      });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([
        { field: `members.0.${name}`, message: `members.0.${name} is not a known field` },
      ]);
    });

    it.each(names)('%s in a query string, with and without a query DTO', async (name) => {
      for (const path of ['/api/sdk/tweets', '/api/sdk/community/settings']) {
        const res = await call(t.app, 'GET', path, { token: owner.token, query: { [name]: '1' } });
        expect({ path, status: res.status, details: res.body.details }).toEqual({
          path,
          status: 400,
          details: [{ field: name, message: `${name} is not a known field` }],
        });
      }
    });
  });

  it('refuses a uuid-shaped slug, in any case', async () => {
    await t.prisma.user.update({ where: { id: owner.user.id }, data: { isPlatformAdmin: true } });
    for (const slug of [
      owner.community.id,
      '00000000-0000-0000-0000-000000000000',
      owner.community.id.toUpperCase(),
    ]) {
      const res = await call(t.app, 'POST', '/api/admin/sdk/communities', {
        token: owner.token,
        body: { name: 'Shadow', slug },
      });
      expect(res.status).toBe(400);
      expect(res.body.details).toContainEqual({
        field: 'slug',
        message: 'slug must not have the shape of a uuid',
      });
    }
    const fine = await call(t.app, 'POST', '/api/admin/sdk/communities', {
      token: owner.token,
      body: { name: 'Not a uuid', slug: `abcdef01-2345-6789-abcd-ef012345678` },
    });
    expect(fine.status).toBe(201);
  });
});
