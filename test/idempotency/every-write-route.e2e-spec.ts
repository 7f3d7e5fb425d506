/* eslint-disable @typescript-eslint/no-explicit-any -- the OpenAPI document is untyped JSON */
import { randomUUID } from 'node:crypto';
import { createTestApp, TestApp } from '../utils/app';
import { memberWithToken } from '../utils/factories';
import { call, type CallResult } from '../utils/http';
import { builtDocument } from '../utils/openapi-conformance';
import { requiredFieldsBody } from '../utils/write-routes';

/** Routes with no identity to scope a key to: they take no Idempotency-Key (docs/idempotency.md#the-rules). */
const UNKEYED = [/^\/api\/auth\//, /^\/api\/webhooks\/portal-sessions$/];

/**
 * Every POST, PUT, PATCH and DELETE the API registers (as its OpenAPI document lists them, like the
 * hostile-input test) documents the Idempotency-Key, refuses a malformed one with a 400 naming it,
 * and answers a repeat of a success from storage: the same status and body, `Idempotent-Replayed: true`;
 * a repeat of a refusal runs again.
 */
describe('Idempotency-Key on every write route (generated from the OpenAPI document)', () => {
  let t: TestApp;
  let owner: Awaited<ReturnType<typeof memberWithToken>>;
  const built: any = builtDocument();
  const routes: { method: 'POST' | 'PUT' | 'PATCH' | 'DELETE'; template: string; operation: any }[] = [];
  for (const [template, operations] of Object.entries<any>(built.paths)) {
    for (const [method, operation] of Object.entries<any>(operations)) {
      if (!['post', 'put', 'patch', 'delete'].includes(method)) continue;
      if (UNKEYED.some((route) => route.test(template))) continue;
      routes.push({ method: method.toUpperCase() as 'POST', template, operation });
    }
  }

  beforeAll(async () => {
    t = await createTestApp();
    owner = await memberWithToken(t.app, { plan: 'ENTERPRISE', role: 'OWNER' });
    await t.prisma.user.update({ where: { id: owner.user.id }, data: { isPlatformAdmin: true } });
  });
  afterAll(async () => {
    // events the writes raised have no endpoint to go to: nothing for other specs' workers to relay
    await t.prisma.outboxEvent.updateMany({
      where: { communityId: owner.community.id, relayedAt: null },
      data: { relayedAt: new Date() },
    });
    await t.close();
  });

  function urlOf(template: string): string {
    return template.replace(/\{([^}]+)\}/g, (_, name: string) =>
      name === 'communityId' ? owner.community.id : randomUUID(),
    );
  }

  /** Every required field of the body with a plausible value; the route may still refuse it. */
  function bodyOf(operation: any): Record<string, unknown> | undefined {
    const schema = operation.requestBody?.content?.['application/json']?.schema;
    return schema ? requiredFieldsBody(built, schema) : undefined;
  }

  /** A caller who passes every guard; a fresh one per route, so rate limits never interfere. */
  async function callerToken(): Promise<string> {
    const fresh = await memberWithToken(t.app, { communityId: owner.community.id, role: 'OWNER' });
    await t.prisma.user.update({ where: { id: fresh.user.id }, data: { isPlatformAdmin: true } });
    return fresh.token;
  }

  it('finds the write routes', () => {
    expect(routes.length).toBeGreaterThanOrEqual(25);
    expect(routes.map((r) => `${r.method} ${r.template}`)).toEqual(
      expect.arrayContaining(['POST /api/sdk/tweets', 'DELETE /api/sdk/tweets/{id}']),
    );
  });

  it('each documents the header, the replay header and the 409 and 422 answers', () => {
    for (const { method, template, operation } of routes) {
      const label = `${method} ${template}`;
      const header = (operation.parameters ?? []).find((p: any) => p.name === 'Idempotency-Key');
      expect({ label, in: header?.in }).toEqual({ label, in: 'header' });
      expect({ label, codes: Object.keys(operation.responses) }).toEqual({
        label,
        codes: expect.arrayContaining(['409', '422']),
      });
      const success = Object.entries<any>(operation.responses).find(([s]) => s.startsWith('2'))![1];
      expect({ label, replayed: Object.keys(success.headers ?? {}) }).toEqual({
        label,
        replayed: expect.arrayContaining(['Idempotent-Replayed']),
      });
    }
  });

  it('each refuses a malformed key with a 400 naming the header, and replays a repeat of a success', async () => {
    let replayed = 0;
    for (const { method, template, operation } of routes) {
      const label = `${method} ${template}`;
      const token = await callerToken();
      const url = urlOf(template);
      const body = bodyOf(operation);
      const send = (key: string) =>
        call(t.app, method, url, { token, body, headers: { 'idempotency-key': key } });

      const malformed = await send('not a key');
      expect({ label, status: malformed.status, field: malformed.body?.details?.[0]?.field }).toEqual({
        label,
        status: 400,
        field: 'Idempotency-Key',
      });

      const key = randomUUID();
      const first = await send(key);
      const again = await send(key);
      const outcome = (r: CallResult) => ({
        label,
        status: r.status,
        body: r.body,
        replayed: r.headers['idempotent-replayed'],
      });
      expect({ label, status: first.status < 500 }).toEqual({ label, status: true });
      if (first.status >= 200 && first.status < 300) {
        expect(outcome(again)).toEqual({ ...outcome(first), replayed: 'true' });
        replayed++;
      } else {
        // a 4xx wrote nothing and is not kept (docs/idempotency.md#what-is-stored): the repeat runs again
        expect(outcome(again)).toEqual({ ...outcome(first), replayed: undefined });
      }
    }
    // a few routes succeed with these bodies (most answer 404 for their random ids)
    expect(replayed).toBeGreaterThanOrEqual(5);
  });
});
