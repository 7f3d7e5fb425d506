import { SecretKeyRing } from '../../src/common/crypto/secret-cipher';
import { loadConfig } from '../../src/config/app-config';
import type { ResolveAll } from '../../src/modules/webhooks/core/delivery/url-safety';
import { assertSafeTargetUrl } from '../../src/modules/webhooks/core/delivery/url-safety';
import { WebhookSender } from '../../src/modules/webhooks/core/delivery/webhook-sender.service';
import { sealAuth } from '../../src/modules/webhooks/core/http-transport/endpoint-auth';
import { sealTls } from '../../src/modules/webhooks/core/http-transport/endpoint-tls';
import {
  type EndpointTransport,
  HttpTransport,
} from '../../src/modules/webhooks/core/http-transport/http-transport.service';
import { generateWebhookSecret } from '../../src/modules/webhooks/core/secrets/webhook-secrets.service';
import {
  makePki,
  type Squid,
  startSquid,
  startTlsReceiver,
  startTokenServer,
  type TestPki,
  type TlsReceiver,
  type TokenServer,
} from '../utils/enterprise-peers';
import { unique } from '../utils/factories';
import { waitFor } from '../utils/worker';

const NAME = 'receiver.test';
const PROXY_PASSWORD = 'pr0xy-s3cret-word';
const CLIENT_SECRET = 'cs-very-secret-0f9a2b';

/** Resolves `receiver.test` (which no DNS knows, squid's included) to `address`. */
const resolvingTo =
  (...addresses: string[]): ResolveAll =>
  async () =>
    addresses.map((address) => ({ address, family: 4 }));

const secrets = { liveSecrets: async () => [generateWebhookSecret()] };

function sender(env: Record<string, string>, resolve: ResolveAll) {
  const { config } = loadConfig({ ...process.env, WEBHOOK_TIMEOUT: '15s', ...env });
  const transport = new HttpTransport(config, resolve, {} as never);
  return {
    ring: new SecretKeyRing(config.webhookEncryptionKeys),
    transport,
    sender: new WebhookSender(secrets as never, config, transport, {} as never),
  };
}

function send(s: WebhookSender, url: string, transport?: EndpointTransport) {
  return s.send({
    communityId: 'c',
    endpointId: 'e',
    url,
    messageId: `msg_${unique('m')}`,
    eventType: 'webhook.test',
    body: '{}',
    transport,
  });
}

/** Receivers behind enterprise doors (docs/api.md#receivers-behind-enterprise-doors), against real peers. */
describe('deliveries through an egress proxy, with a client certificate and an OAuth token', () => {
  let pki: TestPki;
  let squid: Squid;
  let receiver: TlsReceiver;
  let tokens: TokenServer;
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    pki = makePki(NAME);
    squid = await startSquid();
    receiver = await startTlsReceiver(pki, { requireClientCert: true });
    tokens = await startTokenServer();
  });

  afterAll(async () => {
    await Promise.all(closers.map((close) => close()));
    await squid?.stop();
    await receiver?.close();
    await tokens?.close();
  });

  const proxied = (resolve: ResolveAll, insecure = 'true') => {
    const made = sender(
      {
        WEBHOOK_ALLOW_INSECURE_TARGETS: insecure,
        WEBHOOK_EGRESS_PROXY: `http://platform:${PROXY_PASSWORD}@127.0.0.1:${squid.port}`,
      },
      resolve,
    );
    closers.push(() => made.transport.onModuleDestroy());
    return made;
  };

  const withTls = (
    ring: SecretKeyRing,
    version: number,
    ca: string | null = pki.serverCa,
  ): EndpointTransport => ({
    version,
    tls: sealTls(ring, { clientCertificate: pki.clientCert, clientKey: pki.clientKey, caCertificates: ca })
      .stored,
    auth: null,
  });

  it('reaches an https receiver that demands a client certificate through squid, which is asked for the checked address', async () => {
    const { sender: s, ring, transport } = proxied(resolvingTo('127.0.0.1'));
    const url = `https://${NAME}:${receiver.port}/mtls`;
    const result = await send(s, url, withTls(ring, 1));
    expect(result).toMatchObject({ ok: true, status: 200, error: null });
    const arrived = receiver.received.filter((r) => r.path === '/mtls');
    expect(arrived).toHaveLength(1);
    // the certificate check and SNI used the name (the server's certificate is for receiver.test only),
    // Host is the name, and the receiver saw the client certificate
    expect(arrived[0]).toMatchObject({ host: `${NAME}:${receiver.port}`, clientCn: 'platform-client' });
    // squid logs a tunnel when it closes: closing the transport's pools closes it
    await transport.onModuleDestroy();
    // squid was asked for the address the platform checked, never for the name (which it cannot resolve)
    await waitFor("the tunnel in squid's access log", () =>
      squid.connects().includes(`CONNECT 127.0.0.1:${receiver.port}`),
    );
    expect(squid.connects().some((line) => line.includes(NAME))).toBe(false);
    // a second send (the test route's and the worker's go through the same transport) is a second tunnel
    const before = squid.connects().length;
    const again = sender(
      { WEBHOOK_ALLOW_INSECURE_TARGETS: 'true', WEBHOOK_EGRESS_PROXY: `http://127.0.0.1:${squid.port}` },
      resolvingTo('127.0.0.1'),
    );
    expect((await send(again.sender, url, withTls(again.ring, 1))).ok).toBe(true);
    await again.transport.onModuleDestroy();
    await waitFor("the second tunnel in squid's access log", () => squid.connects().length === before + 1);
  });

  it('fails without the client certificate, and with the system roots alone for a private CA', async () => {
    const { sender: s, ring } = proxied(resolvingTo('127.0.0.1'));
    const url = `https://${NAME}:${receiver.port}/refused`;
    const bare = await send(s, url, { version: 0, tls: null, auth: null, destination: null });
    expect(bare.ok).toBe(false);
    const systemRoots = await send(s, url, withTls(ring, 2, null));
    expect(systemRoots.ok).toBe(false);
    expect(systemRoots.error).toMatch(/certificate/i);
    expect(receiver.received.filter((r) => r.path === '/refused')).toHaveLength(0);
  });

  it('refuses a name resolving to a private address before squid is asked, and a name that rebinds', async () => {
    const { sender: strict, transport: first } = proxied(resolvingTo('10.1.2.3'), 'false');
    const privateTarget = await send(strict, `https://${NAME}/hooks`);
    expect(privateTarget.ok).toBe(false);
    expect(privateTarget.error).toMatch(/non-public address \(10\.1\.2\.3\)/);
    // DNS rebinding: public when the URL was checked, loopback when the delivery connects
    let lookups = 0;
    const rebinding: ResolveAll = async () => [
      { address: lookups++ === 0 ? '93.184.215.14' : '127.0.0.1', family: 4 },
    ];
    await expect(
      assertSafeTargetUrl(`https://${NAME}/`, { allowInsecure: false, lookup: rebinding }),
    ).resolves.toBeInstanceOf(URL);
    const { sender: rebound, transport: second } = proxied(rebinding, 'false');
    const result = await send(rebound, `https://${NAME}/hooks`);
    expect(result.error).toMatch(/non-public address \(127\.0\.0\.1\)/);
    // any tunnel they had opened would be logged once closed: none names either address
    await Promise.all([first.onModuleDestroy(), second.onModuleDestroy()]);
    expect(squid.connects().filter((line) => /10\.1\.2\.3|:443$/.test(line))).toEqual([]);
  });

  it('fails with an error naming the proxy (never its password) while it is down, and succeeds once it is back', async () => {
    const { sender: s, ring } = proxied(resolvingTo('127.0.0.1'));
    const url = `https://${NAME}:${receiver.port}/outage`;
    await squid.stop();
    const down = await send(s, url, withTls(ring, 3));
    expect(down).toMatchObject({ ok: false, status: null });
    expect(down.error).toBe(`egress proxy 127.0.0.1:${squid.port} failed: connection refused`);
    expect(down.error).not.toContain(PROXY_PASSWORD);
    await squid.start();
    expect((await send(s, url, withTls(ring, 3))).ok).toBe(true);
  });

  describe('OAuth 2.0 client credentials', () => {
    const oauth = (ring: SecretKeyRing, version: number): EndpointTransport => ({
      version,
      tls: sealTls(ring, {
        clientCertificate: pki.clientCert,
        clientKey: pki.clientKey,
        caCertificates: pki.serverCa,
      }).stored,
      auth: sealAuth(
        ring,
        {
          type: 'oauth2_client_credentials',
          tokenUrl: tokens.url,
          clientId: 'platform',
          clientSecret: CLIENT_SECRET,
          scope: 'hooks',
        },
        null,
      ),
    });
    const url = () => `https://${NAME}:${receiver.port}/oauth`;

    it('asks for one token for 200 deliveries across two workers, and sends it as a bearer token', async () => {
      tokens.status = 200;
      const before = tokens.requests.length;
      const version = Date.now();
      const workers = [proxied(resolvingTo('127.0.0.1')), proxied(resolvingTo('127.0.0.1'))];
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) => {
          const w = workers[i % 2];
          return send(w.sender, url(), { ...oauth(w.ring, version), version });
        }),
      );
      expect([...new Set(results.map((r) => r.error))]).toEqual([null]);
      expect(tokens.requests.length).toBe(before + 1);
      const request = tokens.requests[before];
      expect(request.form.get('grant_type')).toBe('client_credentials');
      expect(request.form.get('scope')).toBe('hooks');
      expect(request.authorization).toBe(
        `Basic ${Buffer.from(`platform:${CLIENT_SECRET}`).toString('base64')}`,
      );
      const token = `tok-${before + 1}`;
      expect(receiver.received.filter((r) => r.authorization === `Bearer ${token}`)).toHaveLength(200);
    });

    it('gets a new token exactly once after a 401, within the same attempt', async () => {
      tokens.status = 200;
      const before = tokens.requests.length;
      const rejected = `Bearer tok-${before + 1}`;
      receiver.answer((req) => (req.headers.authorization === rejected ? 401 : 200));
      try {
        const { sender: s, ring } = proxied(resolvingTo('127.0.0.1'));
        const version = Date.now();
        const results = await Promise.all(
          Array.from({ length: 5 }, () => send(s, url(), oauth(ring, version))),
        );
        expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
        expect(tokens.requests.length).toBe(before + 2);
        expect((await send(s, url(), oauth(ring, version))).ok).toBe(true);
        expect(tokens.requests.length).toBe(before + 2);
      } finally {
        receiver.answer(() => 200);
      }
    });

    it('records a failed token request with its status, never the secret, and sends nothing', async () => {
      tokens.status = 500;
      try {
        const { sender: s, ring } = proxied(resolvingTo('127.0.0.1'));
        const arrived = receiver.received.length;
        const result = await send(s, url(), oauth(ring, Date.now()));
        expect(result).toMatchObject({ ok: false, status: null, error: 'token endpoint answered HTTP 500' });
        expect(JSON.stringify(result)).not.toContain(CLIENT_SECRET);
        expect(receiver.received.length).toBe(arrived);
      } finally {
        tokens.status = 200;
      }
    });
  });
});
