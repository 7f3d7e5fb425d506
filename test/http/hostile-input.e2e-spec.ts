/* eslint-disable @typescript-eslint/no-explicit-any -- the OpenAPI document and answers are untyped JSON */
import { randomUUID } from 'node:crypto';
import { JwtService } from '@nestjs/jwt';
import {
  ANONYMOUS_AUTH_BODY_LIMIT_BYTES,
  ANONYMOUS_AUTH_ROUTES,
  BODY_LIMIT_BYTES,
} from '../../src/bootstrap/http-app';
import { MAX_JSON_DEPTH } from '../../src/common/http/input-safety';
import { createTestApp, TestApp, useTestApp } from '../utils/app';
import { createUser, memberWithToken } from '../utils/factories';
import { call, CallResult } from '../utils/http';
import { routeArgumentClasses } from '../utils/input-classes';
import { builtDocument } from '../utils/openapi-conformance';
import {
  classNamed,
  fieldsOf,
  type Method,
  requiredFieldsBody,
  writeRoutes,
  type WriteRoute,
} from '../utils/write-routes';

/**
 * Hostile input on EVERY write route (docs/product-decisions.md#1-responses-and-errors: bad input is a 4xx
 * with the error body, never a 500). The routes come from the OpenAPI document the app serves, and the
 * fields of each body from the validation metadata of the DTO the document names, so a new route or field is
 * covered without editing this file.
 */

// Hundreds of requests per test on a shared 2-core machine. jest.config.js sets testTimeout inside
// `projects`, where jest 30 ignores it (only the global option counts), so the file sets its own.
jest.setTimeout(60_000);

/** [[[…]]] nested `depth` levels under a communityId field (so the top level counts as one). */
function nestedBody(depth: number): string {
  return `{"communityId":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
}

function expectContract400(res: CallResult, field?: string, orField?: string) {
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
  expect(typeof res.body.error).toBe('string');
  if (field !== undefined) {
    const named: string[] = (res.body.details ?? []).map((d: { field: string }) => d.field);
    expect(named.includes(field) || (orField !== undefined && named.includes(orField)) ? field : named).toBe(
      field,
    );
  }
}

describe('hostile input on every write route (generated from the OpenAPI document)', () => {
  let t: TestApp;
  let doc: any;
  let routes: WriteRoute[];
  let owner: Awaited<ReturnType<typeof memberWithToken>>;
  let classes: Map<string, new () => object>;

  beforeAll(async () => {
    t = await createTestApp();
    const res = await call(t.app, 'GET', '/api/docs-json');
    doc = res.body;
    routes = writeRoutes(doc);
    classes = routeArgumentClasses(t.app);
    owner = await memberWithToken(t.app, { plan: 'ENTERPRISE', role: 'OWNER' });
    // platform routes (create a community) are validated only after the platform-admin check
    await t.prisma.user.update({ where: { id: owner.user.id }, data: { isPlatformAdmin: true } });
  });
  afterAll(() => t.close());

  /** The route's URL for the owner's community: random uuids for other ids, the first value of an enum. */
  function urlOf(route: WriteRoute, override: Record<string, string> = {}): string {
    return route.template.replace(/\{([^}]+)\}/g, (_, name: string) => {
      if (name in override) return override[name];
      if (name === 'communityId') return owner.community.id;
      const enumValues = route.parameters.find((p) => p.name === name)?.schema?.enum;
      return enumValues?.[0] ?? randomUUID();
    });
  }

  /** A caller who passes auth, tenant, feature and permission checks (a fresh one where a route is rate-limited). */
  async function callerFor(route: WriteRoute): Promise<string> {
    if (!route.rateLimited) return owner.token;
    const fresh = await memberWithToken(t.app, { communityId: owner.community.id, role: 'OWNER' });
    return fresh.token;
  }

  function send(route: WriteRoute, token: string, body: unknown, url = urlOf(route)) {
    return call(t.app, route.method as 'POST' | 'PUT' | 'PATCH', url, { token, body });
  }

  it('finds the write routes and their bodies in the document', () => {
    expect(routes.length).toBeGreaterThanOrEqual(20);
    const withBody = routes.filter((r) => r.schema);
    expect(withBody.length).toBeGreaterThanOrEqual(15);
    for (const route of withBody) {
      const fields = fieldsOf(classNamed(route.schema!, classes), doc.components.schemas, route.schema!);
      expect(fields.length).toBeGreaterThan(0);
    }
    expect(routes.map((r) => `${r.method} ${r.template}`)).toEqual(
      expect.arrayContaining([
        'POST /api/auth/login',
        'POST /api/sdk/members/bulk',
        'PATCH /api/sdk/community/settings',
        'POST /api/communities/{communityId}/webhooks',
      ]),
    );
  });

  describe('JSON nesting limit, enforced while parsing', () => {
    it(`every write route answers 400 past ${MAX_JSON_DEPTH} levels, before authentication`, async () => {
      for (const route of routes) {
        for (const depth of [MAX_JSON_DEPTH + 1, 5_000]) {
          const res = await send(route, owner.token, nestedBody(depth));
          expect({ route: route.template, depth, status: res.status }).toEqual({
            route: route.template,
            depth,
            status: 400,
          });
          expect(res.body).toEqual({
            success: false,
            error: `JSON body nested deeper than ${MAX_JSON_DEPTH} levels`,
            code: 'VALIDATION_ERROR',
            details: [{ field: 'body', message: `JSON body nested deeper than ${MAX_JSON_DEPTH} levels` }],
          });
        }
        // anonymous too: the parser runs before any guard
        const anonymous = await call(t.app, route.method as 'POST', urlOf(route), {
          body: nestedBody(5_000),
        });
        expect(anonymous.status).toBe(400);
      }
    });

    it(`parses a body of exactly ${MAX_JSON_DEPTH} levels (it reaches validation)`, async () => {
      const res = await call(t.app, 'POST', '/api/auth/login', { body: nestedBody(MAX_JSON_DEPTH) });
      expectContract400(res, 'communityId');
      expect(res.body.error).not.toMatch(/nested deeper/);
    });

    it('does not count brackets inside strings', async () => {
      const res = await call(t.app, 'POST', '/api/auth/login', {
        body: { email: 'nobody@example.test', password: `"[{\\"${'[{'.repeat(100)}` },
      });
      expect(res.status).toBe(401);
    });

    it('keeps the prototype-poisoning protection of the default parser', async () => {
      const res = await call(t.app, 'POST', '/api/auth/login', {
        body: '{"email":"a@example.test","password":"x","__proto__":{"isPlatformAdmin":true}}',
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        success: false,
        code: 'VALIDATION_ERROR',
        error: 'Malformed JSON body',
      });
    });

    it('answers a 900 KB nested body with 413 on the anonymous auth routes and 400 elsewhere', async () => {
      const huge = nestedBody(450_000);
      expect(huge.length).toBeGreaterThan(ANONYMOUS_AUTH_BODY_LIMIT_BYTES);
      expect(huge.length).toBeLessThan(BODY_LIMIT_BYTES);
      for (const route of routes) {
        const res = await send(route, owner.token, huge);
        const expected = ANONYMOUS_AUTH_ROUTES.includes(route.template) ? 413 : 400;
        expect({ route: route.template, status: res.status }).toEqual({
          route: route.template,
          status: expected,
        });
        expect(res.body.success).toBe(false);
      }
    });
  });

  describe('NUL characters and lone surrogates in every string of every body', () => {
    const hostile: [string, string][] = [
      ['a NUL character', 'ok\u0000ok'],
      ['a lone high surrogate', 'ok\ud800ok'],
      ['a lone low surrogate', '\udc00'],
    ];

    it.each(hostile)('%s → 400 naming the field', async (_label, value) => {
      let cases = 0;
      for (const route of routes.filter((r) => r.schema)) {
        const fields = fieldsOf(classNamed(route.schema!, classes), doc.components.schemas, route.schema!);
        for (const field of fields.filter((f) => f.text)) {
          // JSON.stringify writes a lone surrogate as a \ud800 escape: exactly what a hostile client sends
          const res = await send(route, owner.token, field.body(value));
          expect({
            route: `${route.method} ${route.template}`,
            field: field.path,
            status: res.status,
          }).toEqual({
            route: `${route.method} ${route.template}`,
            field: field.path,
            status: 400,
          });
          expectContract400(res, field.path);
          cases++;
        }
      }
      expect(cases).toBeGreaterThanOrEqual(30);
    });

    it('refuses them in a field name as well', async () => {
      const res = await call(t.app, 'POST', '/api/auth/login', {
        body: { email: 'a@example.test', password: 'x', ['e\u0000vil']: 1 },
      });
      expectContract400(res);
    });

    it('an anonymous login with a lone surrogate in the e-mail is a 400, not a 500', async () => {
      const res = await call(t.app, 'POST', '/api/auth/login', {
        body: { email: 'user\ud800@example.test', password: 'x' },
      });
      expectContract400(res, 'email');
    });

    it('refuses NUL in the query string (GET /api/sdk/members?search=%00)', async () => {
      const res = await call(t.app, 'GET', '/api/sdk/members?search=%00', { token: owner.token });
      expectContract400(res, 'search');
      const tenant = await call(t.app, 'GET', '/api/sdk/members?communityId=x%00', { token: owner.token });
      expectContract400(tenant, 'communityId');
    });

    it('refuses NUL in every path parameter of every route', async () => {
      let cases = 0;
      for (const [template, operations] of Object.entries<any>(doc.paths)) {
        const names = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
        for (const method of Object.keys(operations)) {
          for (const name of names) {
            const route: WriteRoute = {
              method: method.toUpperCase() as Method,
              template,
              schema: null,
              rateLimited: false,
              parameters: operations[method].parameters ?? [],
            };
            const url = urlOf(route, { [name]: 'x%00y' });
            const res = await call(t.app, route.method, url, { token: owner.token });
            expect({ url, method, status: res.status }).toEqual({ url, method, status: 400 });
            expectContract400(res, name);
            cases++;
          }
        }
      }
      expect(cases).toBeGreaterThanOrEqual(10);
    });
  });

  describe('ids in the path', () => {
    // The document of dist/: path parameters explained by a DTO are documented by the compiler
    // plugin only. communityId is left out: the tenant guard resolves it (id or slug) first.
    it('every id path parameter is documented as a uuid (or, a message id, by its pattern) and refuses anything else with a 400 naming it', async () => {
      let cases = 0;
      const built: any = builtDocument();
      for (const [template, operations] of Object.entries<any>(built.paths)) {
        for (const [method, operation] of Object.entries<any>(operations)) {
          const route: WriteRoute = {
            method: method.toUpperCase() as Method,
            template,
            schema: null,
            rateLimited: false,
            parameters: operation.parameters ?? [],
          };
          const ids = route.parameters.filter(
            (p: any) => p.in === 'path' && p.name !== 'communityId' && !p.schema?.enum,
          );
          for (const parameter of ids as any[]) {
            const label = `${route.method} ${template} ${parameter.name}`;
            // a message id is the Standard Webhooks webhook-id (msg_ and a ULID), documented by its pattern
            const documented =
              parameter.name === 'messageId'
                ? { format: parameter.schema?.pattern, expected: '^msg_[0-9A-Za-z]+$' }
                : { format: parameter.schema?.format, expected: 'uuid' };
            expect({ label, format: documented.format }).toEqual({ label, format: documented.expected });
            const url = urlOf(route, { [parameter.name]: 'not-a-uuid' });
            // Nest validates the body and the path at once and answers the first refusal: a valid
            // body, so that only the id may be wrong
            const body =
              route.method === 'GET'
                ? undefined
                : requiredFieldsBody(built, operation.requestBody?.content?.['application/json']?.schema);
            const res = await call(t.app, route.method, url, { token: owner.token, body });
            expect({ label, status: res.status }).toEqual({ label, status: 400 });
            expectContract400(res, parameter.name);
            cases++;
          }
        }
      }
      expect(cases).toBeGreaterThanOrEqual(15);
    });
  });

  describe('null where a field is not nullable', () => {
    it('every optional (or required) non-nullable field refuses null with a 400 naming it', async () => {
      let cases = 0;
      for (const route of routes.filter((r) => r.schema)) {
        const fields = fieldsOf(classNamed(route.schema!, classes), doc.components.schemas, route.schema!);
        for (const field of fields.filter((f) => !f.nullable)) {
          const res = await send(route, await callerFor(route), field.body(null));
          expect({
            route: `${route.method} ${route.template}`,
            field: field.path,
            status: res.status,
          }).toEqual({
            route: `${route.method} ${route.template}`,
            field: field.path,
            status: 400,
          });
          expectContract400(res, field.path, field.listPath);
          cases++;
        }
      }
      expect(cases).toBeGreaterThanOrEqual(40);
    });

    it('accepts null where the document says it clears the field (custom domain, branding, rate limit)', async () => {
      let cases = 0;
      for (const route of routes.filter((r) => r.schema)) {
        const fields = fieldsOf(classNamed(route.schema!, classes), doc.components.schemas, route.schema!);
        // a body of this one field is whole only where nothing else is required and the URL names no row of
        // its own (a settings route); elsewhere (an endpoint's create, or its PATCH of a made-up id) the answer
        // may be 400 for the missing fields or 404, but null must not be what is refused
        const wholeBody =
          !(doc.components.schemas[route.schema!].required?.length > 0) &&
          !/\{(?!communityId\})[^}]+\}/.test(route.template);
        for (const field of fields.filter((f) => f.nullable)) {
          const res = await send(route, await callerFor(route), field.body(null));
          const named: string[] = (res.body.details ?? []).map((d: { field: string }) => d.field);
          const outcome = wholeBody
            ? { status: res.status }
            : { refusedForIt: named.includes(field.path), serverError: res.status >= 500 };
          expect({ route: `${route.method} ${route.template}`, field: field.path, ...outcome }).toEqual({
            route: `${route.method} ${route.template}`,
            field: field.path,
            ...(wholeBody ? { status: 200 } : { refusedForIt: false, serverError: false }),
          });
          cases++;
        }
      }
      expect(cases).toBeGreaterThanOrEqual(7);
    });
  });

  describe('body limits of the anonymous auth routes', () => {
    it.each(ANONYMOUS_AUTH_ROUTES)(`%s refuses a body over 16 KiB with 413`, async (url) => {
      const body = { email: 'a@example.test', password: 'x'.repeat(ANONYMOUS_AUTH_BODY_LIMIT_BYTES) };
      const res = await call(t.app, 'POST', url, { body });
      expect(res.status).toBe(413);
      expect(res.body).toEqual({
        success: false,
        error: 'Request body is larger than 16 KiB',
        code: 'PAYLOAD_TOO_LARGE',
      });
    });

    it('keeps 1 MiB elsewhere: a 20 KiB body reaches validation', async () => {
      const res = await call(t.app, 'PATCH', '/api/sdk/community/settings', {
        token: owner.token,
        body: { description: 'x'.repeat(20 * 1024) },
      });
      expectContract400(res, 'description');
    });

    it('a body just under the limit is still read', async () => {
      const res = await call(t.app, 'POST', '/api/auth/login', {
        body: { email: 'nobody@example.test', password: 'x'.repeat(ANONYMOUS_AUTH_BODY_LIMIT_BYTES - 100) },
      });
      expect(res.status).not.toBe(413);
      expect(res.status).toBeLessThan(500);
    });
  });
});

describe('a well-signed token with malformed claims', () => {
  const t = useTestApp();

  it('answers 401, never 500, on authenticated and tenant routes', async () => {
    const user = await createUser(t.app);
    const member = await memberWithToken(t.app, { plan: 'ENTERPRISE' });
    const jwt = t.app.get(JwtService);
    const good = {
      userId: user.id,
      email: user.email,
      role: null,
      tenantId: null,
      tenantSchema: 'public',
      typ: 'access',
      sid: randomUUID(),
    };
    const forged = [
      { ...good, userId: 'not-a-uuid' },
      { ...good, userId: `${user.id}\u0000` },
      { ...good, userId: 42 },
      { ...good, sid: 'not-a-uuid' },
      { ...good, tenantId: 'not-a-uuid' },
      { ...good, tenantId: 7 },
      { ...good, role: 'SUPERUSER' },
      { ...good, email: null },
    ];
    for (const claims of forged) {
      const token = jwt.sign(claims, { expiresIn: 60 });
      for (const url of ['/api/admin/sdk/me', '/api/sdk/members']) {
        const res = await call(t.app, 'GET', url, {
          token,
          headers: { 'x-tenant-id': member.community.id },
        });
        expect({ claims, url, status: res.status }).toEqual({ claims, url, status: 401 });
        expect(res.body).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
      }
    }
    const sane = await call(t.app, 'GET', '/api/admin/sdk/me', { token: jwt.sign(good, { expiresIn: 60 }) });
    expect(sane.status).toBe(200);
  });
});

describe('webhook URL guard: the RFC 6145 IPv4-translated form', () => {
  const t = useTestApp();

  it('is a 400 on create and on PATCH, not a 500', async () => {
    const owner = await memberWithToken(t.app, { plan: 'ENTERPRISE' });
    const base = `/api/communities/${owner.community.id}/webhooks`;
    for (const url of ['https://[::ffff:0:127.0.0.1]/', 'https://[::ffff:0:169.254.169.254]/hooks']) {
      const created = await call(t.app, 'POST', base, {
        token: owner.token,
        body: { url, events: ['member.joined'] },
      });
      expectContract400(created, 'url');
      expect(created.body.error).toMatch(/non-public address/);
    }
    const ok = await call(t.app, 'POST', base, {
      token: owner.token,
      body: { url: 'https://93.184.215.14/hooks', events: ['member.joined'] },
    });
    expect(ok.status).toBe(201);
    const patched = await call(t.app, 'PATCH', `${base}/${ok.body.data.id}`, {
      token: owner.token,
      body: { url: 'https://[::ffff:0:127.0.0.1]/' },
    });
    expectContract400(patched, 'url');
  });
});
