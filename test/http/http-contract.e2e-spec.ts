import { createTestApp, TestApp } from '../utils/app';
import { addMember, createApiKey, createCommunity, createUser, login } from '../utils/factories';
import { call } from '../utils/http';

// argon2id logins are CPU-bound by design: on a busy 2-core machine a test can take seconds.

const ONE_MIB = 1024 * 1024;

describe('HTTP contract of the foundation (docs/api.md#http-contract)', () => {
  let t: TestApp;
  let token: string;
  let apiKey: string;
  let communityId: string;
  beforeAll(async () => {
    t = await createTestApp();
    const community = await createCommunity(t.app);
    communityId = community.id;
    const user = await createUser(t.app);
    await addMember(t.app, community.id, user.id, 'OWNER');
    token = (await login(t.app, user.email, community.id)).accessToken;
    apiKey = (await createApiKey(t.app, community.id, user.id)).key;
  });
  afterAll(() => t.close());

  describe('unmatched paths never answer 404', () => {
    const unmatched = [
      ['GET', '/api/nope'],
      ['GET', '/api/v1/admin/sdk/me'],
      ['POST', '/api/v1/auth/login'],
      ['DELETE', '/api/auth/login'],
      ['GET', '/elsewhere'],
    ] as const;

    it.each(unmatched)(
      '%s %s without credentials → 401 "No authentication token provided"',
      async (method, url) => {
        const res = await call(t.app, method, url);
        expect(res.status).toBe(401);
        expect(res.body).toEqual({
          success: false,
          error: 'No authentication token provided',
          code: 'UNAUTHORIZED',
        });
      },
    );

    it.each(unmatched)('%s %s with bad credentials → 401', async (method, url) => {
      const res = await call(t.app, method, url, { token: 'garbage' });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    });

    it.each(unmatched)(
      '%s %s with a valid token or API key → 400 TENANT_CONTEXT_REQUIRED',
      async (method, url) => {
        for (const credentials of [{ token }, { apiKey }]) {
          const res = await call(t.app, method, url, credentials);
          expect(res.status).toBe(400);
          expect(res.body).toMatchObject({ success: false, code: 'TENANT_CONTEXT_REQUIRED' });
          expect(typeof res.body.error).toBe('string');
        }
      },
    );
  });

  describe('bad input is a 4xx with the error body, never a 500', () => {
    /** Every foundation route that takes a body, with a valid body and the credentials it needs. */
    const routes = () =>
      [
        {
          url: '/api/auth/login',
          token: undefined,
          valid: { email: 'a@example.test', password: 'x' },
          text: 'email',
        },
        {
          url: '/api/auth/refresh-token',
          token: undefined,
          valid: { refreshToken: 'x' },
          text: 'refreshToken',
        },
        { url: '/api/admin/sdk/communities', token, valid: { name: 'n', slug: 'valid-slug' }, text: 'name' },
        { url: '/api/admin/sdk/api-keys', token, valid: { name: 'n' }, text: 'name' },
      ] as const;

    function expectContractError(res: { status: number; body: Record<string, unknown> }, status: number) {
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ success: false, code: expect.any(String), error: expect.any(String) });
      expect(JSON.stringify(res.body)).not.toMatch(/at .+\.(js|ts):\d+/);
    }

    it('malformed JSON → 400', async () => {
      for (const r of routes()) {
        const res = await call(t.app, 'POST', r.url, { token: r.token, body: '{"name": ' });
        expectContractError(res, 400);
        expect(res.body.error).toBe('Malformed JSON body');
      }
    });

    it('a JSON content type with an empty body is no body: a route that needs one names what is missing', async () => {
      for (const r of routes()) {
        const res = await call(t.app, 'POST', r.url, {
          token: r.token,
          body: '',
          headers: { 'content-type': 'application/json' },
        });
        expectContractError(res, 400);
        expect(res.body.code).toBe('VALIDATION_ERROR');
        expect(JSON.stringify(res.body.details)).toContain(r.text);
      }
    });

    it('wrong content type → 415', async () => {
      for (const r of routes()) {
        const res = await call(t.app, 'POST', r.url, {
          token: r.token,
          body: JSON.stringify(r.valid),
          headers: { 'content-type': 'text/plain' },
        });
        expectContractError(res, 415);
        expect(res.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      }
    });

    it('a body without a content type → 415; JSON with a charset is accepted', async () => {
      const bare = await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: '{"email":"a@b.c"}',
      });
      expect(bare.statusCode).toBe(415);
      expect(JSON.parse(bare.body)).toMatchObject({ success: false, code: 'UNSUPPORTED_MEDIA_TYPE' });
      const charset = await call(t.app, 'POST', '/api/auth/login', {
        body: { email: 'nobody@example.test', password: 'x' },
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      expect(charset.status).toBe(401);
    });

    it('unknown field → 400 naming it', async () => {
      for (const r of routes()) {
        const res = await call(t.app, 'POST', r.url, { token: r.token, body: { ...r.valid, isAdmin: true } });
        expectContractError(res, 400);
        expect(res.body.code).toBe('VALIDATION_ERROR');
        expect(res.body.details).toContainEqual({
          field: 'isAdmin',
          message: 'isAdmin is not a known field',
        });
      }
    });

    it('unknown query field → the same 400 naming it on routes without a query DTO', async () => {
      // GET /api/sdk/community is tenant-scoped (communityId is known there); /api/admin/sdk/me is not.
      for (const url of ['/api/sdk/community', '/api/admin/sdk/me']) {
        const res = await call(t.app, 'GET', `${url}?isAdmin=true`, { token });
        expectContractError(res, 400);
        expect(res.body.code).toBe('VALIDATION_ERROR');
        expect(res.body.details).toEqual([{ field: 'isAdmin', message: 'isAdmin is not a known field' }]);
      }
      expect(
        (await call(t.app, 'GET', `/api/sdk/community?communityId=${communityId}`, { token })).status,
      ).toBe(200);
      const untenanted = await call(t.app, 'GET', `/api/admin/sdk/me?communityId=${communityId}`, { token });
      expect(untenanted.body.details).toEqual([
        { field: 'communityId', message: 'communityId is not a known field' },
      ]);
    });

    it('wrong type → 400 naming the field', async () => {
      for (const r of routes()) {
        const res = await call(t.app, 'POST', r.url, { token: r.token, body: { ...r.valid, [r.text]: 42 } });
        expectContractError(res, 400);
        expect(res.body.details.map((d: { field: string }) => d.field)).toContain(r.text);
      }
    });

    it('a JSON array or scalar instead of an object → 400', async () => {
      for (const r of routes()) {
        for (const body of ['[]', '"text"', 'null', '42']) {
          const res = await call(t.app, 'POST', r.url, { token: r.token, body });
          expect(res.status).toBe(400);
          expect(res.body.success).toBe(false);
        }
      }
    });

    it('over-long string → 400 naming the field', async () => {
      for (const r of routes()) {
        const long = r.text === 'email' ? `${'a'.repeat(300)}@example.test` : 'a'.repeat(1000);
        const res = await call(t.app, 'POST', r.url, {
          token: r.token,
          body: { ...r.valid, [r.text]: long },
        });
        expectContractError(res, 400);
        expect(res.body.details.map((d: { field: string }) => d.field)).toContain(r.text);
      }
    });

    it('body over 1 MiB → 413', async () => {
      for (const r of routes()) {
        const body = JSON.stringify({ ...r.valid, [r.text]: 'a'.repeat(ONE_MIB) });
        const res = await call(t.app, 'POST', r.url, { token: r.token, body });
        expectContractError(res, 413);
        expect(res.body).toEqual({
          success: false,
          // the anonymous auth routes have a smaller limit (docs/api.md#http-contract)
          error: `Request body is larger than ${r.token ? '1 MiB' : '16 KiB'}`,
          code: 'PAYLOAD_TOO_LARGE',
        });
      }
    });

    it('empty JSON body → 400', async () => {
      const res = await call(t.app, 'POST', '/api/auth/login', { body: '' });
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
    });
  });

  describe('OpenAPI', () => {
    it('documents every foundation path with both security schemes at /api/docs-json', async () => {
      const res = await call(t.app, 'GET', '/api/docs-json');
      expect(res.status).toBe(200);
      const doc = res.body;
      expect(doc.openapi).toMatch(/^3\./);
      expect(doc.components.securitySchemes).toMatchObject({
        bearer: { type: 'http', scheme: 'bearer' },
        'api-key': { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
      });
      const expected: Record<string, string[]> = {
        '/api/auth/login': ['post'],
        '/api/auth/refresh': ['post'],
        '/api/auth/refresh-token': ['post'],
        '/api/admin/sdk/me': ['get'],
        '/api/admin/sdk/communities': ['post'],
        '/api/admin/sdk/api-keys': ['get', 'post'],
        '/api/admin/sdk/api-keys/{id}': ['delete'],
        '/api/health': ['get'],
      };
      for (const [path, methods] of Object.entries(expected)) {
        expect(doc.paths[path]).toBeDefined();
        for (const method of methods) expect(doc.paths[path][method]).toBeDefined();
      }
      const security = (path: string, method: string) =>
        (doc.paths[path][method].security ?? []).flatMap((s: object) => Object.keys(s)).sort();
      expect(security('/api/admin/sdk/me', 'get')).toEqual(['api-key', 'bearer']);
      expect(security('/api/admin/sdk/api-keys', 'post')).toEqual(['bearer']);
      expect(security('/api/auth/login', 'post')).toEqual([]);
      expect(Object.keys(doc.paths['/api/admin/sdk/communities'].post.responses)).toEqual(
        expect.arrayContaining(['201', '400', '401', '403', '409']),
      );
    });

    it('serves the documentation UI at /api/docs without credentials', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/api/docs' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.body).toMatch(/swagger/i);
    });
  });

  describe('health and request ids', () => {
    it('GET /api/health answers 200 with the database and Redis up', async () => {
      const res = await call(t.app, 'GET', '/api/health');
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      expect(res.body.data).toMatchObject({
        status: 'ok',
        info: { database: { status: 'up' }, redis: { status: 'up' } },
      });
    });

    it("echoes the caller's X-Request-Id, and makes one when it is missing or unsafe", async () => {
      const given = await call(t.app, 'GET', '/api/health', { headers: { 'x-request-id': 'trace-123.abc' } });
      expect(given.headers['x-request-id']).toBe('trace-123.abc');
      const made = await call(t.app, 'GET', '/api/health');
      expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      const unsafe = await call(t.app, 'GET', '/api/health', {
        headers: { 'x-request-id': 'bad id\twith spaces' },
      });
      expect(unsafe.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      const onError = await call(t.app, 'GET', '/api/nope', { headers: { 'x-request-id': 'err-1' } });
      expect(onError.headers['x-request-id']).toBe('err-1');
    });
  });
});

describe('health when a dependency is down', () => {
  let t: TestApp;
  beforeAll(async () => {
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = '/cp_database_that_does_not_exist';
    t = await createTestApp({ DATABASE_URL: url.toString() });
  });
  afterAll(() => t.close());

  it('GET /api/health answers 503 SERVICE_UNAVAILABLE naming the database as down', async () => {
    const res = await call(t.app, 'GET', '/api/health');
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ success: false, code: 'SERVICE_UNAVAILABLE' });
    expect(res.body.details.error.database.status).toBe('down');
    expect(res.body.details.info.redis.status).toBe('up');
  });
});
