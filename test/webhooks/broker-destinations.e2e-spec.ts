import { randomBytes } from 'node:crypto';
import { encryptionKeyId, SecretKeyRing } from '../../src/common/crypto/secret-cipher';
import { EndpointTransportStore } from '../../src/modules/webhooks/core/http-transport/endpoint-transport.store';
import { reencryptTransport } from '../../src/modules/webhooks/core/http-transport/transport-reencrypt';
import {
  openCredentials,
  type StoredDestination,
} from '../../src/modules/webhooks/core/broker-transport/broker-destination';
import { WEBHOOK_DNS_LOOKUP } from '../../src/modules/webhooks/core/delivery/dns-lookup';
import { createTestApp, TestApp } from '../utils/app';
import { memberWithToken } from '../utils/factories';
import { call } from '../utils/http';

const hooks = (communityId: string) => `/api/communities/${communityId}/webhooks`;
const PASSWORD = 'rabbit-pass-Zq81';
const TOKEN = 'nats-token-Pw93';
/** A key of this file's own, so that the re-encryption below can touch only its rows. */
const OLD_KEY = randomBytes(32).toString('base64');
const NEW_KEY = randomBytes(32).toString('base64');

/** The fields of broker destinations on the API (docs/api.md#broker-destinations); no broker is contacted. */
describe('webhook broker destinations: endpoint fields', () => {
  let api: TestApp;
  let written: string[];
  let spies: jest.SpyInstance[];

  beforeAll(async () => {
    written = [];
    spies = [process.stdout, process.stderr].map((stream) =>
      jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
        written.push(String(chunk));
        return true;
      }),
    );
    api = await createTestApp(
      { WEBHOOK_ALLOW_INSECURE_TARGETS: 'false', WEBHOOK_SECRET_ENCRYPTION_KEY: OLD_KEY, LOG_LEVEL: 'debug' },
      undefined,
      // names under internal.example resolve to a private address, every other one to a public one
      (builder) =>
        builder
          .overrideProvider(WEBHOOK_DNS_LOOKUP)
          .useValue(async (host: string) => [
            { address: host.endsWith('internal.example') ? '10.0.0.7' : '93.184.215.14', family: 4 },
          ]),
    );
  });

  afterAll(async () => {
    await api?.close();
    for (const spy of spies) spy.mockRestore();
  });

  const owner = (plan: 'PRO' | 'ENTERPRISE' = 'ENTERPRISE') =>
    memberWithToken(api.app, { plan, role: 'OWNER' });
  const rabbit = (extra: Record<string, unknown> = {}) => ({
    type: 'rabbitmq',
    url: `amqps://app:${PASSWORD}@mq.example.com:5671/prod`,
    exchange: 'community-events',
    routingKey: 'webhooks.all',
    events: ['tweet.created'],
    ...extra,
  });
  const nats = (extra: Record<string, unknown> = {}) => ({
    type: 'nats',
    url: `tls://${TOKEN}@nats.example.com:4222`,
    subject: 'community.events',
    events: ['tweet.created'],
    ...extra,
  });

  it('shows the type and names with the credentials masked, and keeps them sealed out of the url column', async () => {
    const { community, token } = await owner();
    const created = await call(api.app, 'POST', hooks(community.id), { token, body: rabbit() });
    expect(created.status).toBe(201);
    const expected = {
      type: 'rabbitmq',
      url: 'amqps://app:…Zq81@mq.example.com:5671/prod',
      exchange: 'community-events',
      routingKey: 'webhooks.all',
      subject: null,
      tls: null,
      auth: null,
    };
    expect(created.body.data).toMatchObject(expected);
    const id = created.body.data.id as string;
    const list = await call(api.app, 'GET', hooks(community.id), { token });
    expect(list.body.data.items[0]).toMatchObject(expected);
    const n = await call(api.app, 'POST', hooks(community.id), { token, body: nats() });
    expect(n.body.data).toMatchObject({
      type: 'nats',
      url: 'tls://…Pw93@nats.example.com:4222',
      subject: 'community.events',
      exchange: null,
      routingKey: null,
    });
    const http = await call(api.app, 'POST', hooks(community.id), {
      token,
      body: { url: 'https://hooks.example.com/in', events: ['tweet.created'] },
    });
    expect(http.body.data).toMatchObject({ type: 'http', exchange: null, routingKey: null, subject: null });

    const rows = await api.prisma.$queryRaw<{ id: string; url: string; destination: StoredDestination }[]>`
      SELECT id::text, url, destination FROM webhook_endpoints WHERE community_id = ${community.id}::uuid`;
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(PASSWORD);
    expect(stored).not.toContain(TOKEN);
    expect(rows.find((row) => row.id === id)!.url).toBe('amqps://mq.example.com:5671/prod');
    const ring = new SecretKeyRing(api.config.webhookEncryptionKeys);
    expect(openCredentials(ring, rows.find((row) => row.id === id)!.destination.credentials)).toEqual({
      username: 'app',
      password: PASSWORD,
    });
    expect(written.join('')).not.toContain(PASSWORD);
    expect(written.join('')).not.toContain(TOKEN);
  });

  it('fixes the type at create: a PATCH naming another type is 400 naming type', async () => {
    const { community, token } = await owner();
    const created = await call(api.app, 'POST', hooks(community.id), { token, body: rabbit() });
    const path = `${hooks(community.id)}/${created.body.data.id}`;
    for (const type of ['nats', 'http']) {
      const patched = await call(api.app, 'PATCH', path, { token, body: { type } });
      expect(patched.status).toBe(400);
      expect(patched.body).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'type' }] });
      expect(patched.body.error).toContain('type is fixed at create');
    }
    expect((await call(api.app, 'PATCH', path, { token, body: { type: 'rabbitmq' } })).status).toBe(200);
  });

  it('keeps the stored credentials for a url sent back masked, and takes new names', async () => {
    const { community, token } = await owner();
    const created = await call(api.app, 'POST', hooks(community.id), { token, body: rabbit() });
    const id = created.body.data.id as string;
    const patched = await call(api.app, 'PATCH', `${hooks(community.id)}/${id}`, {
      token,
      body: { url: created.body.data.url, routingKey: 'webhooks.other' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ url: created.body.data.url, routingKey: 'webhooks.other' });
    const [row] = await api.prisma.$queryRaw<{ destination: StoredDestination; transport_version: number }[]>`
      SELECT destination, transport_version FROM webhook_endpoints WHERE id = ${id}::uuid`;
    const ring = new SecretKeyRing(api.config.webhookEncryptionKeys);
    expect(openCredentials(ring, row.destination.credentials)).toEqual({
      username: 'app',
      password: PASSWORD,
    });
    // the workers reconnect for the new settings
    expect(row.transport_version).toBe(2);
    // secrets:reencrypt's step moves the credentials to the newest key, leaving the rest as it was
    const newRing = new SecretKeyRing([Buffer.from(NEW_KEY, 'base64'), Buffer.from(OLD_KEY, 'base64')]);
    const store = new EndpointTransportStore(api.prisma);
    const moved = await api.prisma.$transaction((tx) =>
      reencryptTransport(tx, newRing, store, [encryptionKeyId(Buffer.from(OLD_KEY, 'base64'))], [], 100),
    );
    expect(moved.failed).toEqual([]);
    const after = (await store.transportOf(community.id, id))!.destination!;
    expect(after.credentials?.keyId).toBe(newRing.currentKeyId);
    expect(openCredentials(newRing, after.credentials)).toEqual({ username: 'app', password: PASSWORD });
    expect(after).toMatchObject({ type: 'rabbitmq', routingKey: 'webhooks.other' });
    const bad = await call(api.app, 'PATCH', `${hooks(community.id)}/${id}`, {
      token,
      body: { subject: 'a.b' },
    });
    expect(bad.body).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'subject' }] });
  });

  it('applies the address and scheme rules to a broker host', async () => {
    const { community, token } = await owner();
    const refused = async (body: Record<string, unknown>, field: string, message: RegExp) => {
      const answer = await call(api.app, 'POST', hooks(community.id), { token, body });
      expect(answer.status).toBe(400);
      expect(answer.body.details[0].field).toBe(field);
      expect(answer.body.error).toMatch(message);
    };
    await refused(rabbit({ url: 'amqp://mq.example.com' }), 'url', /must use amqps:\/\//);
    await refused(nats({ url: 'nats://nats.example.com' }), 'url', /must use tls:\/\//);
    await refused(rabbit({ url: 'amqps://127.0.0.1:5671' }), 'url', /non-public address \(127\.0\.0\.1\)/);
    await refused(rabbit({ url: 'amqps://mq.internal.example' }), 'url', /resolves to a non-public address/);
    await refused(nats({ url: 'tls://169.254.169.254' }), 'url', /non-public address/);
    await refused(rabbit({ routingKey: undefined }), 'routingKey', /required/);
    await refused(nats({ subject: 'a.>' }), 'subject', /wildcards/);
    await refused(nats({ exchange: 'x' }), 'exchange', /does not belong to a nats endpoint/);
    await refused(
      { url: 'https://hooks.example.com/in', events: ['tweet.created'], subject: 'a' },
      'subject',
      /this one is http/,
    );
    await refused(
      rabbit({
        auth: {
          type: 'oauth2_client_credentials',
          tokenUrl: 'https://l.example.com/t',
          clientId: 'a',
          clientSecret: 'b',
        },
      }),
      'auth',
      /http endpoints only/,
    );
  });

  it('needs the webhook_brokers feature for a broker endpoint, not for an http one', async () => {
    const { community, token } = await owner('PRO');
    const refused = await call(api.app, 'POST', hooks(community.id), { token, body: nats() });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'FEATURE_NOT_AVAILABLE', featureKey: 'webhook_brokers' });
    const http = await call(api.app, 'POST', hooks(community.id), {
      token,
      body: { url: 'https://hooks.example.com/in', events: ['tweet.created'] },
    });
    expect(http.status).toBe(201);
  });

  it('lets no other community see or touch a broker endpoint', async () => {
    const a = await owner();
    const b = await owner();
    const created = await call(api.app, 'POST', hooks(a.community.id), { token: a.token, body: rabbit() });
    const id = created.body.data.id as string;
    const listed = await call(api.app, 'GET', hooks(b.community.id), { token: b.token });
    expect(listed.body.data.items).toEqual([]);
    const log = await call(api.app, 'GET', `${hooks(b.community.id)}/${id}/deliveries`, { token: b.token });
    expect(log.status).toBe(404);
    const patch = await call(api.app, 'PATCH', `${hooks(b.community.id)}/${id}`, {
      token: b.token,
      body: { exchange: 'stolen' },
    });
    expect(patch.status).toBe(404);
    expect((await call(api.app, 'DELETE', `${hooks(b.community.id)}/${id}`, { token: b.token })).status).toBe(
      404,
    );
    // and naming the other community in the path is refused outright
    const foreign = await call(api.app, 'GET', hooks(a.community.id), { token: b.token });
    expect(foreign.status).toBe(403);
    const still = await call(api.app, 'GET', hooks(a.community.id), { token: a.token });
    expect(still.body.data.items[0].exchange).toBe('community-events');
  });
});
