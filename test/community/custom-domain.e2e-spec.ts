import { loadConfig } from '../../src/config/app-config';
import { PrismaService } from '../../src/prisma/prisma.service';
import {
  Caller,
  createCommunity,
  createUser,
  CREDENTIAL_KINDS,
  login,
  memberCaller,
  outboxOf,
  unique,
} from '../utils/factories';
import { createTestApp, TestApp } from '../utils/app';
import { call } from '../utils/http';
import { startDnsServer, TestDnsServer } from './dns-server';

// Custom domains (docs/product-decisions.md#3-tenancy-roles-permissions-plans): requested → pending with a
// DNS TXT challenge → verified through a real DNS server this file starts (DNS_RESOLVER points the service at
// it).

const SERVICE_HOSTNAMES = 'api.service.test, Alias.Service.test';
const PUBLIC_HOST = 'public.service.test';

let t: TestApp;
let dns: TestDnsServer;
/** a platform admin of no community: resolves wherever the Host points, TENANT_CONTEXT_REQUIRED otherwise */
let observer: string;

beforeAll(async () => {
  dns = await startDnsServer();
  t = await createTestApp({
    DNS_RESOLVER: dns.address,
    SERVICE_HOSTNAMES,
    PUBLIC_BASE_URL: `https://${PUBLIC_HOST}`,
  });
  const admin = await createUser(t.app, { isPlatformAdmin: true });
  observer = (await login(t.app, admin.email)).accessToken;
});
afterAll(async () => {
  await t.close();
  await dns.close();
});

const domain = () => `${unique('forum')}.example.com`;

/** The community a request through `host` acts in, or null when the Host resolves none. */
async function communityOnHost(host: string): Promise<string | null> {
  const res = await call(t.app, 'GET', '/api/sdk/community', { token: observer, headers: { host } });
  if (res.status === 400 && res.body.code === 'TENANT_CONTEXT_REQUIRED') return null;
  expect(res.status).toBe(200);
  return res.body.data.id;
}

function requestDomain(caller: Caller, customDomain: string | null, extra: Record<string, unknown> = {}) {
  return call(t.app, 'PATCH', '/api/sdk/community/settings', {
    ...caller.auth,
    body: { customDomain, ...extra },
  });
}

function verify(caller: Caller, body: Record<string, unknown> = {}) {
  return call(t.app, 'POST', '/api/sdk/community/custom-domain/verify', { ...caller.auth, body });
}

function row(communityId: string) {
  return t.app.get(PrismaService).community.findUniqueOrThrow({ where: { id: communityId } });
}

async function changedFields(communityId: string) {
  const events = await outboxOf(t.app, communityId, 'community.updated');
  return events.map((e) => (e.payload as { data: { changed: string[] } }).data.changed);
}

describe.each(CREDENTIAL_KINDS)('custom domains with %s credentials', (kind) => {
  const enterprise = (role: 'OWNER' | 'ADMIN' = 'OWNER') =>
    memberCaller(t.app, kind, { plan: 'ENTERPRISE', role });

  it('records a requested domain as pending with the TXT record to publish; its Host resolves nothing', async () => {
    const a = await enterprise('ADMIN');
    const host = domain();
    const res = await requestDomain(a, host.toUpperCase());
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      customDomain: null,
      customDomainPending: {
        domain: host,
        txtRecord: { name: `_cp-challenge.${host}`, value: expect.stringMatching(/^cp-verify=[\w-]{32}$/) },
        requestedAt: expect.any(String),
      },
    });
    const pending = res.body.data.customDomainPending;
    expect((await call(t.app, 'GET', '/api/sdk/community/settings', { ...a.auth })).body.data).toMatchObject({
      customDomain: null,
      customDomainPending: pending,
    });
    expect((await call(t.app, 'GET', '/api/sdk/community', { ...a.auth })).body.data).toMatchObject({
      customDomain: null,
      customDomainPending: pending,
    });
    expect(await communityOnHost(host)).toBeNull();

    // Asking again keeps the token, so a record already published stays valid.
    const again = await requestDomain(a, host);
    expect(again.body.data.customDomainPending).toEqual(pending);
    expect(await changedFields(a.communityId)).toEqual([['customDomainPending']]);
  });

  it('activates the domain when its TXT record carries the token: the Host then resolves', async () => {
    const a = await enterprise();
    const host = domain();
    const { txtRecord } = (await requestDomain(a, host)).body.data.customDomainPending;
    // Other TXT values at the same name (an SPF record, an old token) do not get in the way.
    dns.setTxt(txtRecord.name, 'v=spf1 -all', 'cp-verify=an-old-token', txtRecord.value);

    const res = await verify(a);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ customDomain: host, customDomainPending: null });
    expect(await communityOnHost(host)).toBe(a.communityId);
    expect(await communityOnHost(`${host.toUpperCase()}.:8443`)).toBe(a.communityId);
    expect(await row(a.communityId)).toMatchObject({
      customDomain: host,
      customDomainPending: null,
      customDomainToken: null,
      customDomainRequestedAt: null,
    });
    expect(await changedFields(a.communityId)).toEqual([
      ['customDomainPending'],
      ['customDomain', 'customDomainPending'],
    ]);
  });

  it.each([
    ['no TXT record at all', () => [] as string[], /No TXT record found at _cp-challenge\./],
    ['a record with another token', () => ['cp-verify=not-the-token'], /do not include "cp-verify=/],
    ['a lookup that fails (SERVFAIL)', null, /could not be looked up \(ESERVFAIL\)/],
  ])('refuses %s with 400 naming customDomain, activating nothing', async (_case, values, message) => {
    const a = await enterprise();
    const host = domain();
    const { txtRecord } = (await requestDomain(a, host)).body.data.customDomainPending;
    if (values) dns.setTxt(txtRecord.name, ...values());
    else dns.failing.add(txtRecord.name);

    const res = await verify(a);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    expect(res.body.error).toMatch(message);
    expect(res.body.details).toEqual([{ field: 'customDomain', message: res.body.error }]);
    if (values && values().length === 0) {
      // The message says exactly what to publish.
      expect(res.body.error).toContain(txtRecord.name);
      expect(res.body.error).toContain(txtRecord.value);
    }
    expect(await row(a.communityId)).toMatchObject({ customDomain: null, customDomainPending: host });
    expect(await communityOnHost(host)).toBeNull();
    expect(await changedFields(a.communityId)).toEqual([['customDomainPending']]);
  });

  it('answers 400 when there is no pending domain to verify', async () => {
    const a = await enterprise();
    const res = await verify(a);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.error).toMatch(/no pending custom domain/);
  });

  it('keeps the active domain serving until a new one is verified; the active one again cancels it', async () => {
    const a = await enterprise();
    const [first, second] = [domain(), domain()];
    const one = (await requestDomain(a, first)).body.data.customDomainPending.txtRecord;
    dns.setTxt(one.name, one.value);
    expect((await verify(a)).status).toBe(200);

    const pending = await requestDomain(a, second);
    expect(pending.body.data).toMatchObject({ customDomain: first, customDomainPending: { domain: second } });
    expect(await communityOnHost(first)).toBe(a.communityId);
    expect(await communityOnHost(second)).toBeNull();

    // Requesting the active domain again drops the pending change.
    const cancelled = await requestDomain(a, first);
    expect(cancelled.body.data).toMatchObject({ customDomain: first, customDomainPending: null });

    const two = (await requestDomain(a, second)).body.data.customDomainPending.txtRecord;
    dns.setTxt(two.name, two.value);
    const switched = await verify(a);
    expect(switched.body.data).toMatchObject({ customDomain: second, customDomainPending: null });
    expect(await communityOnHost(second)).toBe(a.communityId);
    expect(await communityOnHost(first)).toBeNull();
  });

  it('null removes both the active and the pending domain', async () => {
    const a = await enterprise();
    const [active, next] = [domain(), domain()];
    const record = (await requestDomain(a, active)).body.data.customDomainPending.txtRecord;
    dns.setTxt(record.name, record.value);
    await verify(a);
    await requestDomain(a, next);

    const cleared = await requestDomain(a, null);
    expect(cleared.status).toBe(200);
    expect(cleared.body.data).toMatchObject({ customDomain: null, customDomainPending: null });
    expect(await communityOnHost(active)).toBeNull();
    expect(await row(a.communityId)).toMatchObject({ customDomainPending: null, customDomainToken: null });
    expect((await verify(a)).status).toBe(400);
  });

  it('lets no second community take a domain active elsewhere (409), at request or at verification', async () => {
    const [a, b] = [await enterprise(), await enterprise()];
    const host = domain();
    // Both ask for the domain while it is free; each gets its own token.
    const aRecord = (await requestDomain(a, host)).body.data.customDomainPending.txtRecord;
    const bRecord = (await requestDomain(b, host)).body.data.customDomainPending.txtRecord;
    expect(bRecord.value).not.toBe(aRecord.value);
    dns.setTxt(aRecord.name, aRecord.value, bRecord.value);
    expect((await verify(a)).status).toBe(200);

    const late = await verify(b);
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ code: 'CONFLICT', error: expect.stringContaining(host) });
    const again = await requestDomain(b, host);
    expect(again.status).toBe(409);
    expect(await communityOnHost(host)).toBe(a.communityId);
    expect(await row(b.communityId)).toMatchObject({ customDomain: null });
  });

  it("isolates communities: B can neither verify A's pending domain nor see A's token", async () => {
    const [a, b] = [await enterprise(), await enterprise()];
    const host = domain();
    const aRecord = (await requestDomain(a, host)).body.data.customDomainPending.txtRecord;
    dns.setTxt(aRecord.name, aRecord.value);

    // Naming A from B's credentials is refused before anything is looked up.
    for (const body of [{ communityId: a.communityId }]) {
      const res = await verify(b, body);
      expect(res.status).toBe(403);
    }
    const peek = await call(t.app, 'GET', '/api/sdk/community/settings', {
      ...b.auth,
      headers: { 'x-community-id': a.communityId },
    });
    expect(peek.status).toBe(403);
    expect(JSON.stringify(peek.body)).not.toContain(aRecord.value);
    const own = await call(t.app, 'GET', '/api/sdk/community/settings', { ...b.auth });
    expect(own.body.data).toMatchObject({ customDomain: null, customDomainPending: null });

    // B asking for the same domain gets its own token; A's published record does not verify B.
    const bPending = await requestDomain(b, host);
    expect(JSON.stringify(bPending.body)).not.toContain(aRecord.value);
    const bVerify = await verify(b);
    expect(bVerify.status).toBe(400);
    expect(await row(a.communityId)).toMatchObject({ customDomain: null, customDomainPending: host });
    expect(await communityOnHost(host)).toBeNull();
  });

  it('takes COMMUNITY_MANAGE and the custom_domain feature to verify', async () => {
    const owner = await enterprise();
    const moderator = await memberCaller(t.app, kind, { role: 'MODERATOR', communityId: owner.communityId });
    const denied = await verify(moderator);
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('FORBIDDEN');
    for (const plan of ['FREE', 'PRO'] as const) {
      const res = await verify(await memberCaller(t.app, kind, { plan }));
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'FEATURE_NOT_AVAILABLE', featureKey: 'custom_domain' });
    }
  });

  it.each(['api.service.test', 'ALIAS.service.test', PUBLIC_HOST, 'localhost'])(
    "refuses the service's own hostname %s with 400 naming customDomain",
    async (name) => {
      const a = await enterprise();
      const res = await requestDomain(a, name);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain('customDomain');
      expect(await row(a.communityId)).toMatchObject({ customDomain: null, customDomainPending: null });
      expect(await outboxOf(t.app, a.communityId, 'community.updated')).toHaveLength(0);
    },
  );
});

describe("the service's own hostnames", () => {
  it('never resolve to a community, even one whose row holds such a name', async () => {
    // A row written before the rule existed (factories write the column directly).
    const holder = await createCommunity(t.app, { plan: 'ENTERPRISE', customDomain: 'alias.service.test' });
    expect(await communityOnHost('alias.service.test')).toBeNull();
    expect(await communityOnHost('Alias.Service.Test.')).toBeNull();
    expect(await communityOnHost(PUBLIC_HOST)).toBeNull();
    // Its domain cannot be re-verified either.
    await t.app.get(PrismaService).community.update({
      where: { id: holder.id },
      data: {
        customDomain: null,
        customDomainPending: 'alias.service.test',
        customDomainToken: 'x'.repeat(32),
        customDomainRequestedAt: new Date(),
      },
    });
    const owner = await memberCaller(t.app, 'jwt', { communityId: holder.id });
    dns.setTxt('_cp-challenge.alias.service.test', `cp-verify=${'x'.repeat(32)}`);
    const res = await verify(owner);
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([expect.objectContaining({ field: 'customDomain' })]);
    expect(await communityOnHost('alias.service.test')).toBeNull();
  });
});

describe('OpenAPI', () => {
  it('documents the verification route and the pending domain with its TXT record', async () => {
    const doc = (await call(t.app, 'GET', '/api/docs-json')).body;
    const verifyRoute = doc.paths['/api/sdk/community/custom-domain/verify'].post;
    expect(verifyRoute.summary).toMatch(/TXT record/);
    expect(Object.keys(verifyRoute.responses)).toEqual(expect.arrayContaining(['200', '400', '403', '409']));
    const { schemas } = doc.components;
    expect(schemas.SettingsDto.properties.customDomainPending).toBeDefined();
    expect(schemas.SdkCommunityDto.properties.customDomainPending).toBeDefined();
    expect(schemas.TxtRecordDto.properties).toMatchObject({
      name: expect.any(Object),
      value: expect.any(Object),
    });
  });
});

describe('configuration of custom-domain verification', () => {
  it('always protects localhost and the PUBLIC_BASE_URL host, adding SERVICE_HOSTNAMES (lower-cased)', () => {
    expect(loadConfig({}).config.serviceHostnames).toEqual(['localhost']);
    const { config } = loadConfig({
      PUBLIC_BASE_URL: 'https://Community.Example.org:8443/base',
      SERVICE_HOSTNAMES: ' api.example.org , Internal-LB.example.org. ',
    });
    expect(config.serviceHostnames).toEqual([
      'localhost',
      'community.example.org',
      'api.example.org',
      'internal-lb.example.org',
    ]);
  });

  it('reads DNS_RESOLVER as a list of servers, the system default when unset', () => {
    expect(loadConfig({}).config.dnsResolvers).toBeUndefined();
    expect(loadConfig({ DNS_RESOLVER: '127.0.0.1:5353, [::1]:53,9.9.9.9' }).config.dnsResolvers).toEqual([
      '127.0.0.1:5353',
      '[::1]:53',
      '9.9.9.9',
    ]);
  });

  it.each([
    [{ DNS_RESOLVER: 'dns.example.com' }, 'DNS_RESOLVER'],
    [{ DNS_RESOLVER: '127.0.0.1:99999' }, 'DNS_RESOLVER'],
    [{ DNS_RESOLVER: '127.0.0.1,' }, 'DNS_RESOLVER'],
    [{ SERVICE_HOSTNAMES: 'api.example.org, not a host' }, 'SERVICE_HOSTNAMES'],
    [{ SERVICE_HOSTNAMES: 'https://api.example.org' }, 'SERVICE_HOSTNAMES'],
  ])('refuses %j at start-up, naming the setting', (env, name) => {
    expect(() => loadConfig(env)).toThrow(new RegExp(`${name}: `));
  });
});
