import { OutboxService } from '../../src/modules/events/outbox.service';
import { createTestApp, TestApp } from '../utils/app';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { syntheticData } from '../utils/synthetic-event';
import { Receiver, startReceiver } from '../utils/webhook-receiver';
import { DELIVERY_TEST_ENV, startTestWorker, TestWorker, waitFor } from '../utils/worker';

const hooks = (communityId: string) => `/api/communities/${communityId}/webhooks`;

const TOKEN_VALUE = `Bearer rcv_${unique('token')}_9f3a`;
const ROUTE_VALUE = 'eu-1';

/** Custom headers of an endpoint (docs/api.md#webhooks): validated, sealed at rest, masked on read, sent. */
describe('webhook endpoint custom headers', () => {
  let api: TestApp;
  let worker: TestWorker;
  let receiver: Receiver;
  let written: string[];
  let spies: jest.SpyInstance[];

  beforeAll(async () => {
    written = [];
    // everything the API and the worker write, at debug level, to check no header value is logged
    spies = [process.stdout, process.stderr].map((stream) =>
      jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
        written.push(String(chunk));
        return true;
      }),
    );
    api = await createTestApp({ ...DELIVERY_TEST_ENV, LOG_LEVEL: 'debug' });
    worker = await startTestWorker({ ...DELIVERY_TEST_ENV, LOG_LEVEL: 'debug' });
    receiver = await startReceiver();
  });

  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await receiver?.close();
    for (const spy of spies) spy.mockRestore();
  });

  async function setUp(
    headers: Record<string, string> = { Authorization: TOKEN_VALUE, 'X-Route': ROUTE_VALUE },
  ) {
    const member = await memberWithToken(api.app, { plan: 'PRO', role: 'OWNER' });
    const path = `/${unique('hook')}`;
    const created = await call(api.app, 'POST', hooks(member.community.id), {
      token: member.token,
      body: { url: receiver.url + path, events: ['tweet.created'], headers },
    });
    expect(created.status).toBe(201);
    return { ...member, endpointId: created.body.data.id as string, path, created: created.body.data };
  }

  it('shows each value masked to its last 4 characters on create, read, list and PATCH', async () => {
    const s = await setUp();
    const masked = { Authorization: '…9f3a', 'X-Route': '…' };
    expect(s.created.headers).toEqual(masked);
    const list = await call(api.app, 'GET', hooks(s.community.id), { token: s.token });
    expect(list.body.data.items[0].headers).toEqual(masked);
    const patched = await call(api.app, 'PATCH', `${hooks(s.community.id)}/${s.endpointId}`, {
      token: s.token,
      body: { description: 'headers unchanged' },
    });
    expect(patched.body.data.headers).toEqual(masked);
    expect(JSON.stringify([s.created, list.body, patched.body])).not.toContain(TOKEN_VALUE);
    expect(JSON.stringify([s.created, list.body, patched.body])).not.toContain(ROUTE_VALUE);

    // an endpoint without headers shows an empty set
    const bare = await call(api.app, 'POST', hooks(s.community.id), {
      token: s.token,
      body: { url: receiver.url + '/bare', events: ['tweet.created'] },
    });
    expect(bare.body.data.headers).toEqual({});
  });

  it('stores only ciphertext: the database row holds neither value', async () => {
    const s = await setUp();
    const [row] = await api.prisma.$queryRaw<{ custom_headers: unknown }[]>`
      SELECT custom_headers FROM webhook_endpoints WHERE id = ${s.endpointId}::uuid`;
    const stored = JSON.stringify(row.custom_headers);
    expect(stored).toContain('ciphertext');
    expect(stored).not.toContain(TOKEN_VALUE);
    expect(stored).not.toContain('rcv_');
    expect(stored).not.toContain('Authorization');
    expect(stored).not.toContain(ROUTE_VALUE);
  });

  it('sends the headers verbatim on deliveries and on the test route', async () => {
    const s = await setUp();
    await api.prisma.$transaction((tx) =>
      api.app
        .get(OutboxService)
        .record(tx, s.community.id, 'tweet.created', syntheticData({ tweet: { id: unique('t') } })),
    );
    const [delivered] = await waitFor(
      'the delivery',
      () => receiver.at(s.path).length === 1 && receiver.at(s.path),
    );
    expect(delivered.headers.authorization).toBe(TOKEN_VALUE);
    expect(delivered.headers['x-route']).toBe(ROUTE_VALUE);
    expect(delivered.headers['webhook-signature']).toMatch(/^v1,/);

    const test = await call(api.app, 'POST', `${hooks(s.community.id)}/${s.endpointId}/test`, {
      token: s.token,
    });
    expect(test.status).toBe(200);
    const probe = receiver.at(s.path).at(-1)!;
    expect(JSON.parse(probe.body).type).toBe('webhook.test');
    expect(probe.headers.authorization).toBe(TOKEN_VALUE);
    expect(probe.headers['x-route']).toBe(ROUTE_VALUE);
    expect(written.join('')).not.toContain(TOKEN_VALUE);
  });

  it('PATCH replaces the set; a value sent back masked keeps its stored value; {} removes them', async () => {
    const s = await setUp();
    const url = `${hooks(s.community.id)}/${s.endpointId}`;
    const patched = await call(api.app, 'PATCH', url, {
      token: s.token,
      body: { headers: { Authorization: '…9f3a', 'X-Tenant': 'acme-tenant-42' } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data.headers).toEqual({ Authorization: '…9f3a', 'X-Tenant': '…t-42' });
    await call(api.app, 'POST', `${url}/test`, { token: s.token });
    const probe = receiver.at(s.path).at(-1)!;
    expect(probe.headers.authorization).toBe(TOKEN_VALUE);
    expect(probe.headers['x-tenant']).toBe('acme-tenant-42');
    expect(probe.headers['x-route']).toBeUndefined();

    const cleared = await call(api.app, 'PATCH', url, { token: s.token, body: { headers: {} } });
    expect(cleared.body.data.headers).toEqual({});
    const [row] = await api.prisma.$queryRaw<{ custom_headers: unknown }[]>`
      SELECT custom_headers FROM webhook_endpoints WHERE id = ${s.endpointId}::uuid`;
    expect(row.custom_headers).toBeNull();
  });

  it('refuses names the platform sets with 400 naming each of them', async () => {
    const s = await setUp();
    const refused = [
      'Webhook-Signature',
      'content-type',
      'Content-Length',
      'host',
      'User-Agent',
      'connection',
      'transfer-encoding',
      'te',
      'upgrade',
      'keep-alive',
      'proxy-authorization',
      'trailer',
      'traceparent',
      'tracestate',
      'Expect',
      'expect',
    ];
    for (const name of refused) {
      const res = await call(api.app, 'PATCH', `${hooks(s.community.id)}/${s.endpointId}`, {
        token: s.token,
        body: { headers: { [name]: 'v' } },
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.error).toContain(name);
    }
    // one answer names them all
    const both = await call(api.app, 'POST', hooks(s.community.id), {
      token: s.token,
      body: {
        url: receiver.url + '/x',
        events: ['tweet.created'],
        headers: { host: 'a', 'webhook-id': 'b', 'X-Ok': 'c' },
      },
    });
    expect(both.status).toBe(400);
    expect(both.body.error).toContain('host, webhook-id');
    expect(both.body.error).not.toContain('X-Ok');
  });

  it('refuses bad names, bad values, too many headers, and a PATCH with any of them', async () => {
    const s = await setUp();
    const bad: Record<string, string>[] = [
      { 'X Space': 'v' },
      { 'X-Line': 'a\r\nInjected: yes' },
      { 'X-Nul': 'a\0b' },
      { 'X-Big': 'x'.repeat(1025) },
      { 'X-Dup': 'a', 'x-dup': 'b' },
      Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, 'v'])),
    ];
    for (const headers of bad) {
      const created = await call(api.app, 'POST', hooks(s.community.id), {
        token: s.token,
        body: { url: receiver.url + '/x', events: ['tweet.created'], headers },
      });
      expect(created.status).toBe(400);
      expect(created.body.code).toBe('VALIDATION_ERROR');
      const patched = await call(api.app, 'PATCH', `${hooks(s.community.id)}/${s.endpointId}`, {
        token: s.token,
        body: { headers },
      });
      expect(patched.status).toBe(400);
    }
    const notObject = await call(api.app, 'PATCH', `${hooks(s.community.id)}/${s.endpointId}`, {
      token: s.token,
      body: { headers: ['Authorization: x'] },
    });
    expect(notObject.status).toBe(400);
    // 20 headers of 1 KiB each are within the rules
    const most = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`X-H${i}`, 'v'.repeat(1024)]));
    const ok = await call(api.app, 'PATCH', `${hooks(s.community.id)}/${s.endpointId}`, {
      token: s.token,
      body: { headers: most },
    });
    expect(ok.status).toBe(200);
  });

  it('refuses each kind of value HTTP cannot send, naming the header in the details', async () => {
    const s = await setUp();
    const url = `${hooks(s.community.id)}/${s.endpointId}`;
    const bad: [string, string][] = [
      ['a control character', 'a\u0001b'],
      ['DEL', 'a\u007fb'],
      ['a vertical tab', 'a\u000bb'],
      ['a form feed', 'a\u000cb'],
      ['an accented letter', 'café'],
      ['a character outside Latin-1', 'tok€n'],
      ['an emoji', 'ok 👍'],
      ['a leading space', ' token'],
      ['a trailing tab', 'token\t'],
      ['1,025 bytes', 'v'.repeat(1025)],
    ];
    for (const [kind, value] of bad) {
      const res = await call(api.app, 'PATCH', url, {
        token: s.token,
        body: { headers: { 'X-Good': 'v', 'X-Bad': value } },
      });
      expect([kind, res.status, res.body.code]).toEqual([kind, 400, 'VALIDATION_ERROR']);
      expect(res.body.details).toEqual([
        { field: 'headers', message: expect.stringContaining('headers.X-Bad ') },
      ]);
      expect(res.body.error).not.toContain('X-Good');
      // the answer never echoes the value: it may be a credential
      if (value.trim().length > 3) expect(res.body.error).not.toContain(value.trim());
    }
    // a create with all of them at once is refused naming each (creates are rate limited: one call)
    const created = await call(api.app, 'POST', hooks(s.community.id), {
      token: s.token,
      body: {
        url: receiver.url + '/x',
        events: ['tweet.created'],
        headers: { 'X-Good': 'v', ...Object.fromEntries(bad.map(([, value], i) => [`X-Bad-${i}`, value])) },
      },
    });
    expect(created.status).toBe(400);
    for (const i of bad.keys()) expect(created.body.error).toContain(`headers.X-Bad-${i} `);
    expect(created.body.error).not.toContain('X-Good');
    // the endpoint still sends what it had
    await call(api.app, 'POST', `${url}/test`, { token: s.token });
    expect(receiver.at(s.path).at(-1)!.headers.authorization).toBe(TOKEN_VALUE);
  });

  it('takes spaces and tabs inside a value, an empty value, and exactly 1,024 bytes', async () => {
    const s = await setUp();
    const url = `${hooks(s.community.id)}/${s.endpointId}`;
    const headers = {
      'X-Inner': 'a b\tc ~!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}',
      'X-Empty': '',
      'X-Most': 'v'.repeat(1024),
    };
    const patched = await call(api.app, 'PATCH', url, { token: s.token, body: { headers } });
    expect(patched.status).toBe(200);
    await call(api.app, 'POST', `${url}/test`, { token: s.token });
    const probe = receiver.at(s.path).at(-1)!;
    expect(probe.headers['x-inner']).toBe(headers['X-Inner']);
    expect(probe.headers['x-empty']).toBe('');
    expect(probe.headers['x-most']).toBe(headers['X-Most']);
  });

  it('a masked value under a name it was not read with is refused, not stored as the mask', async () => {
    const s = await setUp();
    const res = await call(api.app, 'PATCH', `${hooks(s.community.id)}/${s.endpointId}`, {
      token: s.token,
      body: { headers: { 'X-Renamed': '…9f3a' } },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('headers.X-Renamed');
    expect(res.body.error).toContain('masked');
  });

  it("another community cannot read or change an endpoint's headers", async () => {
    const s = await setUp();
    const other = await memberWithToken(api.app, { plan: 'PRO', role: 'OWNER' });
    const list = await call(api.app, 'GET', hooks(other.community.id), { token: other.token });
    expect(list.body.data.items).toEqual([]);
    const patched = await call(api.app, 'PATCH', `${hooks(other.community.id)}/${s.endpointId}`, {
      token: other.token,
      body: { headers: { 'X-Evil': 'yes' } },
    });
    expect(patched.status).toBe(404);
  });
});
