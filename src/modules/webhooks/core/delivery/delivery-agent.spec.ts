import type { LookupAddress } from 'node:dns';
import { request } from 'undici';
import { loadConfig } from '../../../../config/app-config';
import { generateWebhookSecret } from '../secrets/webhook-secrets.service';
import { guardedLookup } from './delivery-agent';
import { createTransportAgent } from '../http-transport/transport-agents';
import { HttpTransport } from '../http-transport/http-transport.service';
import type { ResolveAll } from './url-safety';
import { WebhookSender } from './webhook-sender.service';

interface LookupResult {
  err: NodeJS.ErrnoException | null;
  address: string | LookupAddress[];
  family?: number;
  calls: number;
}

/**
 * Calls the guarded lookup the way net.connect does and reports what its callback received. Any
 * rejection left unhandled while it runs fails the test: that is what ended the process before.
 */
async function lookupWith(
  resolve: ResolveAll,
  options: { all?: boolean; family?: number } = {},
  guard = true,
): Promise<LookupResult> {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    const result = await new Promise<LookupResult>((done) => {
      const seen: LookupResult = { err: null, address: '', calls: 0 };
      expect(() =>
        guardedLookup(resolve, guard)('hooks.example', options, (err, address, family) => {
          Object.assign(seen, { err, address, family, calls: seen.calls + 1 });
          done(seen);
        }),
      ).not.toThrow();
    });
    // let any stray rejection or second callback surface before judging
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(result.calls).toBe(1);
    expect(unhandled).toEqual([]);
    return result;
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
}

const answers =
  (...list: string[]): ResolveAll =>
  async () =>
    list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('guardedLookup', () => {
  it('answers a public address in both the single and the all form', async () => {
    const single = await lookupWith(answers('93.184.215.14'));
    expect(single).toMatchObject({ err: null, address: '93.184.215.14', family: 4 });
    const all = await lookupWith(answers('93.184.215.14', '2606:4700:4700::1111'), { all: true });
    expect(all.err).toBeNull();
    expect(all.address).toEqual([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:4700:4700::1111', family: 6 },
    ]);
  });

  it.each([
    '::ffff:0:127.0.0.1', // RFC 6145 IPv4-translated loopback: made ipaddr.js throw inside the promise
    '::ffff:0:7f00:1',
    '::ffff:0:169.254.169.254',
    '::ffff:0:10.0.0.1',
    '127.0.0.1',
  ])('refuses a connect to %s through the callback', async (address) => {
    const { err } = await lookupWith(answers('93.184.215.14', address));
    expect(err).toMatchObject({ code: 'EBLOCKEDADDRESS' });
    expect(err?.message).toMatch(/connect refused: hooks\.example resolves to a non-public address/);
  });

  it('fails the attempt when the resolver throws synchronously', async () => {
    const throwing: ResolveAll = () => {
      throw new TypeError('resolver exploded');
    };
    const { err } = await lookupWith(throwing);
    expect(err).toBeInstanceOf(TypeError);
    expect(err?.message).toBe('resolver exploded');
  });

  it('fails the attempt when the resolver rejects, keeping its error', async () => {
    const failing: ResolveAll = () =>
      Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND hooks.example'), { code: 'ENOTFOUND' }));
    const { err } = await lookupWith(failing);
    expect(err).toMatchObject({ code: 'ENOTFOUND' });
  });

  it.each<[string, unknown]>([
    ['a rejection that is not an Error', Promise.reject('nope')],
    ['a synchronous throw of a non-Error', 'throw'],
  ])('fails the attempt on %s', async (_label, outcome) => {
    const resolve = (() => {
      if (outcome === 'throw') throw 42;
      return outcome;
    }) as unknown as ResolveAll;
    const { err } = await lookupWith(resolve);
    expect(err).toMatchObject({ code: 'EBLOCKEDADDRESS' });
    expect(err?.message).toBe('connect refused: address check failed for hooks.example');
  });

  it.each<[string, unknown]>([
    ['null', null],
    ['a string', '127.0.0.1'],
    ['an object', { address: '93.184.215.14', family: 4 }],
    ['an entry without an address', [{ family: 4 }]],
    ['an address that is not a string', [{ address: 2130706433, family: 4 }]],
    ['an unknown family', [{ address: '93.184.215.14', family: 5 }]],
    ['a null entry', [null]],
  ])('fails the attempt when the resolver answers %s', async (_label, garbage) => {
    const resolve = (async () => garbage) as unknown as ResolveAll;
    for (const guard of [true, false]) {
      const { err } = await lookupWith(resolve, {}, guard);
      expect(err?.message).toBe('connect refused: address check failed for hooks.example');
    }
  });

  it('answers ENOTFOUND when no address of the requested family exists', async () => {
    const { err } = await lookupWith(answers('93.184.215.14'), { family: 6 });
    expect(err).toMatchObject({ code: 'ENOTFOUND' });
  });
});

describe('the delivery agent with a resolver that fails', () => {
  it('rejects the request (no process exit) when DNS answers the RFC 6145 form of 127.0.0.1', async () => {
    const agent = createTransportAgent(
      {
        resolve: answers('::ffff:0:127.0.0.1'),
        guardAddresses: true,
        connectTimeoutMs: 2000,
        connectionsPerOrigin: 128,
        proxy: null,
      },
      null,
    );
    try {
      const err = await request('https://rebind.example/hooks', { dispatcher: agent }).then(
        () => null,
        (e: Error & { cause?: { code?: string } }) => e,
      );
      expect(err).not.toBeNull();
      expect([err?.cause?.code, (err as { code?: string })?.code]).toContain('EBLOCKEDADDRESS');
    } finally {
      await agent.close();
    }
  });

  it('records "address check failed" as the attempt error in what the sender reports', async () => {
    const { config } = loadConfig({ ...process.env, WEBHOOK_TIMEOUT: '2s' });
    const throwing: ResolveAll = () => {
      throw 'not an error';
    };
    const transport = new HttpTransport(config, throwing, {} as never);
    const sender = new WebhookSender(
      { liveSecrets: async () => [generateWebhookSecret()] } as never,
      config,
      transport,
      {} as never,
    );
    try {
      const result = await sender.send({
        communityId: 'c',
        endpointId: 'e',
        url: 'https://hooks.example/',
        messageId: 'msg_01TEST',
        eventType: 'webhook.test',
        body: '{}',
      });
      expect(result.ok).toBe(false);
      expect(result.error).toBe('connect refused: address check failed for hooks.example');
    } finally {
      await transport.onModuleDestroy();
    }
  });
});
