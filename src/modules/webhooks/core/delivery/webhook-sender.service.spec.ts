import { request } from 'undici';
import { Webhook } from 'standardwebhooks';
import { RawAnswer, startReceiver } from '../../../../../test/utils/webhook-receiver';
import { loadConfig } from '../../../../config/app-config';
import { generateWebhookSecret } from '../secrets/webhook-secrets.service';
import { createTransportAgent } from '../http-transport/transport-agents';
import { HttpTransport } from '../http-transport/http-transport.service';
import { signV1 } from './sign';
import { assertSafeTargetUrl, ResolveAll } from './url-safety';
import { parseRetryAfter, SendInput, WebhookSender } from './webhook-sender.service';

/** The shared test receiver, addressed at /hooks. */
const receiver = async (answer: RawAnswer) => {
  const target = await startReceiver(answer);
  return { ...target, url: `${target.url}/hooks` };
};

const fixed =
  (...answers: string[]): ResolveAll =>
  async () =>
    answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

const secrets = [generateWebhookSecret(), generateWebhookSecret()];
const liveSecrets = { liveSecrets: async () => secrets };

function sender(env: Record<string, string>, resolve: ResolveAll = fixed('127.0.0.1')) {
  const { config } = loadConfig({ ...process.env, ...env });
  const transport = new HttpTransport(config, resolve, {} as never);
  // the transport owns the connection pools: closing the sender closes them
  return Object.assign(new WebhookSender(liveSecrets as never, config, transport, {} as never), {
    onModuleDestroy: () => transport.onModuleDestroy(),
  });
}

function input(url: string): SendInput {
  const body = JSON.stringify({ id: 'msg_01TEST', type: 'webhook.test', data: { hello: 'world' } });
  return { communityId: 'c', endpointId: 'e', url, messageId: 'msg_01TEST', eventType: 'webhook.test', body };
}

describe('WebhookSender', () => {
  let insecure: ReturnType<typeof sender>;
  const closers: (() => Promise<void>)[] = [];
  beforeAll(() => {
    insecure = sender({ WEBHOOK_ALLOW_INSECURE_TARGETS: 'true', WEBHOOK_TIMEOUT: '500ms' });
  });
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
  });
  afterAll(() => insecure.onModuleDestroy());

  it('signs with every live secret so a standardwebhooks receiver verifies it with either', async () => {
    const target = await receiver((_req, res) => res.writeHead(204).end());
    closers.push(target.close);
    const result = await insecure.send(input(target.url));
    expect(result).toMatchObject({ ok: true, status: 204, error: null, gone: false, retryAfterMs: null });
    const [req] = target.received;
    expect(req.method).toBe('POST');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['user-agent']).toMatch(/^community-platform\/\d+\.\d+\.\d+$/);
    expect(req.headers['webhook-id']).toBe('msg_01TEST');
    expect(req.headers['webhook-signature'].split(' ')).toHaveLength(2);
    const headers = req.headers;
    for (const secret of secrets) {
      expect(new Webhook(secret).verify(req.body, headers)).toEqual(JSON.parse(input(target.url).body));
    }
    expect(() => new Webhook(generateWebhookSecret()).verify(req.body, headers)).toThrow(
      /No matching signature/,
    );
  });

  it('computes exactly the signature of the standardwebhooks package', () => {
    const at = new Date('2026-01-02T03:04:05Z');
    const body = '{"a":"é"}';
    expect(signV1(secrets[0], 'msg_1', Math.floor(at.getTime() / 1000), body)).toBe(
      new Webhook(secrets[0]).sign('msg_1', at, body),
    );
  });

  it('keeps only the first 4 KiB of a large answer', async () => {
    const target = await receiver((_req, res) => res.writeHead(200).end('x'.repeat(1024 * 1024)));
    closers.push(target.close);
    const result = await insecure.send(input(target.url));
    expect(result.ok).toBe(true);
    expect(result.responseBody).toHaveLength(4096);
  });

  it('refuses to follow a redirect: a 3xx is a failure', async () => {
    const target = await receiver((req, res) =>
      req.url === '/hooks'
        ? res.writeHead(302, { location: '/elsewhere' }).end('moved')
        : res.writeHead(200).end(),
    );
    closers.push(target.close);
    const result = await insecure.send(input(target.url));
    expect(result).toMatchObject({
      ok: false,
      status: 302,
      error: 'redirect refused',
      responseBody: 'moved',
    });
    expect(target.received.map((r) => r.path)).toEqual(['/hooks']);
  });

  it('reports 429/503 Retry-After and 410 Gone', async () => {
    const retryAt = new Date(Date.now() + 120_000).toUTCString();
    const target = await receiver((req, res) => {
      if (req.url === '/429') res.writeHead(429, { 'retry-after': '7' }).end();
      else if (req.url === '/503') res.writeHead(503, { 'retry-after': retryAt }).end();
      else res.writeHead(410).end('gone');
    });
    closers.push(target.close);
    const base = `http://127.0.0.1:${target.port}`;
    expect(await insecure.send(input(`${base}/429`))).toMatchObject({
      ok: false,
      status: 429,
      retryAfterMs: 7000,
    });
    const unavailable = await insecure.send(input(`${base}/503`));
    expect(unavailable.retryAfterMs).toBeGreaterThan(100_000);
    expect(unavailable.retryAfterMs).toBeLessThanOrEqual(120_000);
    expect(await insecure.send(input(`${base}/410`))).toMatchObject({ ok: false, status: 410, gone: true });
  });

  it('returns a failure, never throws, for a timeout and a refused connection', async () => {
    const silent = await receiver(() => undefined);
    closers.push(silent.close);
    const timedOut = await insecure.send(input(silent.url));
    expect(timedOut).toMatchObject({ ok: false, status: null, error: 'timeout after 500 ms' });
    await silent.close();
    const refused = await insecure.send(input(silent.url));
    expect(refused).toMatchObject({ ok: false, status: null, error: 'connection refused' });
  });

  it("waits for the endpoint's own timeout when it has one, longer or shorter than WEBHOOK_TIMEOUT", async () => {
    // answers after WEBHOOK_TIMEOUT (this spec's config) and within the endpoint's own timeoutMs below
    const slow = await receiver((_req, res) => void setTimeout(() => res.writeHead(200).end('late'), 700));
    closers.push(slow.close);
    expect(await insecure.send({ ...input(slow.url), timeoutMs: 1_500 })).toMatchObject({
      ok: true,
      status: 200,
    });
    const patient = sender({ WEBHOOK_ALLOW_INSECURE_TARGETS: 'true', WEBHOOK_TIMEOUT: '5s' });
    try {
      const hasty = await patient.send({ ...input(slow.url), timeoutMs: 300 });
      expect(hasty).toMatchObject({ ok: false, status: null, error: 'timeout after 300 ms' });
      expect(hasty.durationMs).toBeLessThan(700);
    } finally {
      await patient.onModuleDestroy();
    }
  });
});

describe('WebhookSender with the address rules on', () => {
  it('refuses a name resolving to a public address first and loopback second, without connecting', async () => {
    const target = await receiver((_req, res) => res.writeHead(200).end());
    const strict = sender({ WEBHOOK_ALLOW_INSECURE_TARGETS: 'false' }, fixed('93.184.215.14', '127.0.0.1'));
    try {
      const result = await strict.send(input('https://rebind.example/hooks'));
      expect(result).toMatchObject({ ok: false, status: null });
      expect(result.error).toMatch(/non-public address \(127\.0\.0\.1\)/);
      expect((await strict.send(input('https://0x7f000001/'))).error).toMatch(/non-public address/);
      expect((await strict.send(input(target.url))).error).toBe('url must use https');
      expect(target.connections()).toBe(0);
    } finally {
      await strict.onModuleDestroy();
      await target.close();
    }
  });

  it('checks the address again at connect: a name that re-binds to loopback never reaches the socket', async () => {
    const target = await receiver((_req, res) => res.writeHead(200).end());
    // DNS rebinding: public while the URL is validated, loopback when the delivery connects
    let lookups = 0;
    const rebinding: ResolveAll = async () => [
      lookups++ === 0 ? { address: '93.184.215.14', family: 4 } : { address: '127.0.0.1', family: 4 },
    ];
    const guarded = createTransportAgent(
      {
        resolve: rebinding,
        guardAddresses: true,
        connectTimeoutMs: 1000,
        connectionsPerOrigin: 128,
        proxy: null,
      },
      null,
    );
    const unguarded = createTransportAgent(
      {
        resolve: fixed('127.0.0.1'),
        guardAddresses: false,
        connectTimeoutMs: 1000,
        connectionsPerOrigin: 128,
        proxy: null,
      },
      null,
    );
    const url = `http://rebind.example:${target.port}/hooks`;
    try {
      await expect(
        assertSafeTargetUrl('https://rebind.example/', { allowInsecure: false, lookup: rebinding }),
      ).resolves.toBeInstanceOf(URL);
      await expect(request(url, { method: 'POST', dispatcher: guarded, body: '{}' })).rejects.toThrow(
        /non-public address \(127\.0\.0\.1\)/,
      );
      expect(target.connections()).toBe(0);
      // the same request without the guard does reach the receiver: the refusal above is the guard's
      const control = await request(url, { method: 'POST', dispatcher: unguarded, body: '{}' });
      await control.body.dump();
      expect(control.statusCode).toBe(200);
      expect(target.connections()).toBe(1);
    } finally {
      await guarded.destroy();
      await unguarded.destroy();
      await target.close();
    }
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it.each([
    ['30', 30_000],
    [' 0 ', 0],
    ['Thu, 01 Jan 2026 00:01:00 GMT', 60_000],
    ['Wed, 31 Dec 2025 23:00:00 GMT', 0],
    ['soon', null],
    [undefined, null],
  ])('%s → %s', (value, expected) => expect(parseRetryAfter(value, now)).toBe(expected));
});
