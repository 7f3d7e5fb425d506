import { setFlagsFromString } from 'node:v8';
import type { Agent } from 'undici';
import { runInNewContext } from 'node:vm';
import { loadConfig } from '../../src/config/app-config';
import { SecretKeyRing } from '../../src/common/crypto/secret-cipher';
import type { ResolveAll } from '../../src/modules/webhooks/core/delivery/url-safety';
import { WebhookSender } from '../../src/modules/webhooks/core/delivery/webhook-sender.service';
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
  type TestPki,
  type TlsReceiver,
} from '../utils/enterprise-peers';
import { unique } from '../utils/factories';
import { waitFor } from '../utils/worker';

const NAME = 'receiver.test';
const resolvingTo =
  (address: string): ResolveAll =>
  async () => [{ address, family: 4 }];
const secrets = { liveSecrets: async () => [generateWebhookSecret()] };

/** A full garbage collection: a kept TLS session must survive it (undici holds sessions by weak reference). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/**
 * mTLS sessions are reused (docs/api.md#mutual-tls): an endpoint's deliveries share kept-alive connections
 * made with its client certificate, a reconnect resumes the TLS session, and a new certificate is a new pool.
 */
describe.each([
  ['straight out', false],
  ['through the egress proxy', true],
])('client-certificate connections %s', (_, viaProxy) => {
  let pki: TestPki;
  let squid: Squid | undefined;
  let receiver: TlsReceiver;
  let transport: HttpTransport;
  let sender: WebhookSender;
  let ring: SecretKeyRing;

  beforeAll(async () => {
    pki = makePki(NAME);
    receiver = await startTlsReceiver(pki, { requireClientCert: true });
    if (viaProxy) squid = await startSquid();
    const { config } = loadConfig({
      ...process.env,
      WEBHOOK_TIMEOUT: '15s',
      WEBHOOK_ALLOW_INSECURE_TARGETS: 'true',
      ...(squid ? { WEBHOOK_EGRESS_PROXY: squid.url } : {}),
    });
    ring = new SecretKeyRing(config.webhookEncryptionKeys);
    transport = new HttpTransport(config, resolvingTo('127.0.0.1'), {} as never);
    sender = new WebhookSender(secrets as never, config, transport, {} as never);
  });

  afterAll(async () => {
    await transport?.onModuleDestroy();
    await receiver?.close();
    await squid?.stop();
  });

  const withTls = (version: number, cert = pki.clientCert, key = pki.clientKey): EndpointTransport => ({
    version,
    tls: sealTls(ring, { clientCertificate: cert, clientKey: key, caCertificates: pki.serverCa }).stored,
    auth: null,
  });

  const send = (path: string, settings: EndpointTransport) =>
    sender.send({
      communityId: 'c',
      endpointId: 'e',
      url: `https://${NAME}:${receiver.port}${path}`,
      messageId: `msg_${unique('m')}`,
      eventType: 'webhook.test',
      body: '{}',
      transport: settings,
    });

  it('keeps its connections alive across deliveries, and resumes the TLS session for each new one, a garbage collection after', async () => {
    const settings = withTls(1);
    const start = { ...receiver.handshakes };
    for (let i = 0; i < 20; i++) expect((await send('/reuse', settings)).error).toBeNull();
    // kept alive: twenty deliveries over two connections (undici's pool opens a second one for the second
    // request and keeps both), the second resuming the first one's TLS session
    expect(receiver.handshakes.total - start.total).toBeLessThanOrEqual(2);
    // four at a time: the pool opens more connections, each resuming the first one's session (no full
    // handshake again: no certificate exchange, no signature with the client key)
    for (let round = 0; round < 10; round++) {
      const results = await Promise.all(Array.from({ length: 4 }, () => send('/reuse', settings)));
      expect(results.map((r) => r.error)).toEqual([null, null, null, null]);
    }
    expect(receiver.received.filter((r) => r.path === '/reuse')).toHaveLength(60);
    const opened = receiver.handshakes.total - start.total;
    expect(opened).toBeGreaterThan(1);
    expect(receiver.handshakes.resumed - start.resumed).toBe(opened - 1);

    // the receiver closes its idle connections (its keep-alive timeout); a garbage collection runs in
    // between, as it does in a busy worker: the next connect still resumes the session, a short handshake
    receiver.dropConnections();
    // once the pool has seen them closed (a delivery on a connection closing under it is another matter)
    const pool = transport.prepare('e', settings).dispatcher as Agent;
    await waitFor('the pool to see its connections closed', () =>
      Object.values(pool.stats).every((stats) => stats.connected === 0),
    );
    collectGarbage();
    const before = { ...receiver.handshakes };
    const again = await send('/reuse', settings);
    expect(again).toMatchObject({ ok: true, status: 200 });
    expect(receiver.handshakes.total - before.total).toBe(1);
    expect(receiver.handshakes.resumed - before.resumed).toBe(1);
    // the resumed session is still the client certificate's
    expect(receiver.received.at(-1)).toMatchObject({ path: '/reuse', clientCn: 'platform-client' });
  });

  it('opens new connections with the new certificate once the endpoint’s tls changes', async () => {
    expect((await send('/changed', withTls(10))).ok).toBe(true);
    const replacement = pki.clientCertValidFor(1);
    const before = receiver.handshakes.total;
    expect((await send('/changed', withTls(11, replacement.cert, replacement.key))).ok).toBe(true);
    // a new pool, whose first connect is a full handshake with the new certificate: the old pool's kept
    // connection (and session) belong to the old certificate
    expect(receiver.handshakes.total - before).toBe(1);
    expect(receiver.received.filter((r) => r.path === '/changed').map((r) => r.clientCn)).toEqual([
      'platform-client',
      'short-lived',
    ]);
  });
});
