import { randomBytes } from 'node:crypto';
import { encryptionKeyId, SecretKeyRing } from '../../src/common/crypto/secret-cipher';
import { WEBHOOK_DNS_LOOKUP } from '../../src/modules/webhooks/core/delivery/dns-lookup';
import { EndpointTransportStore } from '../../src/modules/webhooks/core/http-transport/endpoint-transport.store';
import { openText } from '../../src/modules/webhooks/core/http-transport/sealed-text';
import { reencryptTransport } from '../../src/modules/webhooks/core/http-transport/transport-reencrypt';
import { createTestApp, TestApp } from '../utils/app';
import { makePki, type TestPki } from '../utils/enterprise-peers';
import { memberWithToken } from '../utils/factories';
import { call } from '../utils/http';

const hooks = (communityId: string) => `/api/communities/${communityId}/webhooks`;
/** A key of this file's own, so that the re-encryption below can touch only its rows. */
const OLD_KEY = randomBytes(32).toString('base64');
const NEW_KEY = randomBytes(32).toString('base64');
const SECRET = 'cs-client-secret-7Qx2';

/** The endpoint fields tls and auth on the API (docs/api.md#receivers-behind-enterprise-doors). */
describe('endpoint fields tls and auth', () => {
  let api: TestApp;
  let pki: TestPki;
  let written: string[];
  let spies: jest.SpyInstance[];

  beforeAll(async () => {
    pki = makePki('hooks.example.com');
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
      // every name is public, so that only the rules about tls and auth decide
      (builder) =>
        builder
          .overrideProvider(WEBHOOK_DNS_LOOKUP)
          .useValue(async () => [{ address: '93.184.215.14', family: 4 }]),
    );
  });

  afterAll(async () => {
    await api?.close();
    for (const spy of spies) spy.mockRestore();
  });

  const body = (extra: Record<string, unknown>) => ({
    url: 'https://hooks.example.com/in',
    events: ['tweet.created'],
    ...extra,
  });
  const tls = () => ({
    clientCertificate: pki.clientCert,
    clientKey: pki.clientKey,
    caCertificates: pki.serverCa,
  });
  const auth = (tokenUrl = 'https://login.example.com/token') => ({
    type: 'oauth2_client_credentials',
    tokenUrl,
    clientId: 'platform',
    clientSecret: SECRET,
    scope: 'hooks',
  });

  it('shows the certificate summary and the masked secret, never the key or the secret, and stores both sealed', async () => {
    const { community, token } = await memberWithToken(api.app, { plan: 'PRO', role: 'OWNER' });
    const created = await call(api.app, 'POST', hooks(community.id), {
      token,
      body: body({ tls: tls(), auth: auth() }),
    });
    expect(created.status).toBe(201);
    const view = created.body.data;
    expect(view.tls.clientCertificate).toMatchObject({
      subject: 'CN=platform-client, O=Test Receiver',
      fingerprintSha256: expect.stringMatching(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/),
      notAfter: expect.any(String),
    });
    expect(view.tls.caCertificates).toEqual([{ subject: 'CN=server-ca', notAfter: expect.any(String) }]);
    expect(view.auth).toEqual({
      ...auth(),
      clientSecret: '…x2'.replace('x2', SECRET.slice(-4)),
      audience: null,
    });
    const list = await call(api.app, 'GET', hooks(community.id), { token });
    expect(list.body.data.items[0].tls).toEqual(view.tls);
    const keyBody = pki.clientKey.split('\n')[1];
    for (const answer of [created.body, list.body]) {
      expect(JSON.stringify(answer)).not.toContain(keyBody);
      expect(JSON.stringify(answer)).not.toContain(SECRET);
    }
    const [row] = await api.prisma.$queryRaw<{ tls: string; auth: string }[]>`
      SELECT tls::text, auth::text FROM webhook_endpoints WHERE id = ${view.id}::uuid`;
    expect(row.tls).not.toContain(keyBody);
    expect(row.auth).not.toContain(SECRET);
    expect(written.join('')).not.toContain(keyBody);
    expect(written.join('')).not.toContain(SECRET);

    // a PATCH that sends the masked secret back keeps it; secrets:reencrypt's step moves both to the newest key
    const patched = await call(api.app, 'PATCH', `${hooks(community.id)}/${view.id}`, {
      token,
      body: { auth: { ...auth(), clientSecret: view.auth.clientSecret, scope: 'other' } },
    });
    expect(patched.status).toBe(200);
    const ring = new SecretKeyRing([Buffer.from(NEW_KEY, 'base64'), Buffer.from(OLD_KEY, 'base64')]);
    const store = new EndpointTransportStore(api.prisma);
    const moved = await api.prisma.$transaction((tx) =>
      reencryptTransport(tx, ring, store, [encryptionKeyId(Buffer.from(OLD_KEY, 'base64'))], [], 100),
    );
    expect(moved).toEqual({ moved: 1, failed: [] });
    const after = await store.transportOf(community.id, view.id);
    expect(after?.tls?.key.keyId).toBe(ring.currentKeyId);
    expect(after?.auth?.clientSecret.keyId).toBe(ring.currentKeyId);
    expect(openText(ring, after!.tls!.key)).toBe(pki.clientKey);
    expect(openText(ring, after!.auth!.clientSecret)).toBe(SECRET);
    expect(after?.auth?.scope).toBe('other');
  });

  it.each([
    ["a key that is not the certificate's", () => ({ ...tls(), clientKey: pki.strayKey }), /does not match/],
    ['malformed PEM', () => ({ ...tls(), clientCertificate: 'not a certificate' }), /PEM certificate/],
    [
      'a malformed key',
      () => ({ ...tls(), clientKey: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n' }),
      /private key/,
    ],
  ])('refuses %s with 400 naming tls', async (_case, make, message) => {
    const { community, token } = await memberWithToken(api.app, { plan: 'PRO', role: 'OWNER' });
    const answer = await call(api.app, 'POST', hooks(community.id), { token, body: body({ tls: make() }) });
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('VALIDATION_ERROR');
    expect(answer.body.details[0]).toMatchObject({
      field: 'tls',
      message: expect.stringMatching(message),
    });
  });

  it('refuses a private or loopback tokenUrl, and an authorization header beside auth', async () => {
    const { community, token } = await memberWithToken(api.app, { plan: 'PRO', role: 'OWNER' });
    for (const tokenUrl of [
      'https://127.0.0.1/token',
      'https://10.0.0.5/token',
      'http://login.example.com/token',
    ]) {
      const answer = await call(api.app, 'POST', hooks(community.id), {
        token,
        body: body({ auth: auth(tokenUrl) }),
      });
      expect(answer.status).toBe(400);
      expect(answer.body.details[0].field).toBe('auth.tokenUrl');
    }
    const both = await call(api.app, 'POST', hooks(community.id), {
      token,
      body: body({ auth: auth(), headers: { Authorization: 'Bearer mine' } }),
    });
    expect(both.status).toBe(400);
    expect(both.body.details[0].field).toBe('headers');
  });

  it("keeps another community's endpoint out of reach", async () => {
    const a = await memberWithToken(api.app, { plan: 'PRO', role: 'OWNER' });
    const b = await memberWithToken(api.app, { plan: 'PRO', role: 'OWNER' });
    const created = await call(api.app, 'POST', hooks(a.community.id), {
      token: a.token,
      body: body({ tls: tls() }),
    });
    const other = await call(api.app, 'PATCH', `${hooks(b.community.id)}/${created.body.data.id}`, {
      token: b.token,
      body: { tls: null },
    });
    expect(other.status).toBe(404);
    const still = await call(api.app, 'GET', hooks(a.community.id), { token: a.token });
    expect(created.status).toBe(201);
    expect(still.body.data.items[0].tls).not.toBeNull();
  });
});
