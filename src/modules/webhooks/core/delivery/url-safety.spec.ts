import { assertSafeTargetUrl, isBlockedAddress, ResolveAll, UnsafeTargetError } from './url-safety';

/** A resolver that answers from a table and fails the test if asked about anything else. */
function resolver(table: Record<string, string[]>): ResolveAll & { calls: string[] } {
  const calls: string[] = [];
  const fn = async (hostname: string) => {
    calls.push(hostname);
    const answers = table[hostname];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(fn, { calls });
}

const dns = resolver({
  'example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'internal.example': ['10.0.0.5'],
  'metadata.example': ['169.254.169.254'],
  'mixed.example': ['93.184.215.14', '127.0.0.1'],
  'v6local.example': ['fd00::1'],
  'mapped.example': ['::ffff:192.168.0.1'],
  'translated.example': ['93.184.215.14', '::ffff:0:127.0.0.1'],
  'empty.example': [],
  localhost: ['127.0.0.1', '::1'],
});
const strict = { allowInsecure: false, lookup: dns };

describe('assertSafeTargetUrl refuses', () => {
  const refused: [string, RegExp][] = [
    ['not a url', /absolute URL/],
    ['/relative/path', /absolute URL/],
    ['http://example.com/hooks', /https/],
    ['ftp://example.com/hooks', /https/],
    ['https://example.com:8443/hooks', /port 443/],
    ['https://example.com:80/hooks', /port 443/],
    ['https://user:pass@example.com/hooks', /user name or password/],
    ['https://user@example.com/hooks', /user name or password/],
    ['https://127.0.0.1/', /non-public address \(127\.0\.0\.1\)/],
    ['https://2130706433/', /127\.0\.0\.1/], // decimal
    ['https://0x7f000001/', /127\.0\.0\.1/], // hex
    ['https://0177.0.0.1/', /127\.0\.0\.1/], // octal
    ['https://127.1/', /127\.0\.0\.1/], // short form
    ['https://0x7f.1/', /127\.0\.0\.1/], // mixed
    ['https://017700000001/', /127\.0\.0\.1/], // whole-number octal
    ['https://10.0.0.1/', /non-public/],
    ['https://172.16.5.4/', /non-public/],
    ['https://192.168.1.1/', /non-public/],
    ['https://169.254.169.254/latest/meta-data', /non-public/], // cloud metadata
    ['https://100.64.0.1/', /non-public/], // CGNAT
    ['https://224.0.0.1/', /non-public/], // multicast
    ['https://0.0.0.0/', /non-public/], // unspecified
    ['https://0/', /non-public/], // unspecified, short form
    ['https://255.255.255.255/', /non-public/], // broadcast
    ['https://198.18.0.1/', /non-public/], // benchmarking
    ['https://192.0.2.1/', /non-public/], // TEST-NET-1
    ['https://240.0.0.1/', /non-public/], // reserved
    ['https://[::1]/', /non-public/],
    ['https://[::]/', /non-public/],
    ['https://[fc00::1]/', /non-public/], // ULA
    ['https://[fd12:3456::1]/', /non-public/], // ULA
    ['https://[fe80::1]/', /non-public/], // link-local
    ['https://[ff02::1]/', /non-public/], // multicast
    ['https://[::ffff:127.0.0.1]/', /non-public/], // IPv4-mapped loopback
    ['https://[::ffff:169.254.169.254]/', /non-public/], // IPv4-mapped metadata
    ['https://[0:0:0:0:0:ffff:10.0.0.1]:443/', /non-public/], // IPv4-mapped private, long form
    ['https://[::127.0.0.1]/', /non-public/], // deprecated IPv4-compatible
    ['https://[::ffff:0:127.0.0.1]/', /non-public/], // RFC 6145 IPv4-translated loopback (threw in ipaddr.js)
    ['https://[::ffff:0:7f00:1]/', /non-public/], // the same, hex spelling
    ['https://[0:0:0:0:ffff:0:a9fe:a9fe]/', /non-public/], // RFC 6145 of 169.254.169.254
    ['https://[::ffff:0:10.0.0.1]/', /non-public/], // RFC 6145 of a private address
    ['https://[64:ff9b::a9fe:a9fe]/', /non-public/], // NAT64 of 169.254.169.254
    ['https://[2002:7f00:1::]/', /non-public/], // 6to4 of 127.0.0.1
    ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', /non-public/], // Teredo client 192.0.2.45
    ['https://localhost/', /resolves to a non-public address/],
    ['https://internal.example/hooks', /resolves to a non-public address \(10\.0\.0\.5\)/],
    ['https://metadata.example/', /169\.254\.169\.254/],
    ['https://mixed.example/', /resolves to a non-public address \(127\.0\.0\.1\)/], // EVERY address must be public
    ['https://v6local.example/', /fd00::1/],
    ['https://mapped.example/', /::ffff:192\.168\.0\.1/],
    ['https://translated.example/', /::ffff:0:127\.0\.0\.1/],
    ['https://nowhere.example/', /does not resolve/],
    ['https://empty.example/', /does not resolve/],
  ];

  it.each(refused)('%s', async (url, reason) => {
    await expect(assertSafeTargetUrl(url, strict)).rejects.toThrow(UnsafeTargetError);
    await expect(assertSafeTargetUrl(url, strict)).rejects.toThrow(reason);
  });

  it('checks IP literals directly, without asking DNS', async () => {
    const local = resolver({});
    await expect(
      assertSafeTargetUrl('https://0x7f000001/', { allowInsecure: false, lookup: local }),
    ).rejects.toThrow(UnsafeTargetError);
    await expect(
      assertSafeTargetUrl('https://8.8.8.8/', { allowInsecure: false, lookup: local }),
    ).resolves.toBeInstanceOf(URL);
    expect(local.calls).toEqual([]);
  });
});

describe('assertSafeTargetUrl accepts public https targets on 443', () => {
  it.each([
    'https://example.com/hooks',
    'https://example.com:443/hooks?x=1',
    'https://93.184.215.14/hooks',
    'https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/hooks',
    'https://[::ffff:8.8.8.8]/', // IPv4-mapped public
    'https://[64:ff9b::808:808]/', // NAT64 of 8.8.8.8
    'https://[::ffff:0:8.8.8.8]/', // RFC 6145 IPv4-translated public: classified by its IPv4
  ])('%s', async (url) => {
    const parsed = await assertSafeTargetUrl(url, strict);
    expect(parsed.protocol).toBe('https:');
  });
});

describe('a resolver that never answers', () => {
  it('is refused as not resolving once lookupTimeoutMs has passed', async () => {
    const silent: ResolveAll = () => new Promise(() => undefined);
    await expect(
      assertSafeTargetUrl('https://slow.example/', {
        allowInsecure: false,
        lookup: silent,
        lookupTimeoutMs: 50,
      }),
    ).rejects.toThrow(/does not resolve/);
  });
});

describe('a resolver that answers garbage or throws', () => {
  it.each<[string, unknown]>([
    ['null', null],
    ['a string', '93.184.215.14'],
    ['a null entry', [null]],
    ['an entry without an address', [{ family: 4 }]],
    ['a numeric address', [{ address: 2130706433, family: 4 }]],
  ])('refuses (no TypeError) when it answers %s', async (_label, garbage) => {
    const lookup = (async () => garbage) as unknown as ResolveAll;
    await expect(
      assertSafeTargetUrl('https://odd.example/', { allowInsecure: false, lookup }),
    ).rejects.toThrow(UnsafeTargetError);
  });

  it('refuses as not resolving when it throws synchronously', async () => {
    const lookup: ResolveAll = () => {
      throw new Error('boom');
    };
    await expect(
      assertSafeTargetUrl('https://odd.example/', { allowInsecure: false, lookup }),
    ).rejects.toThrow(/does not resolve/);
  });
});

describe('WEBHOOK_ALLOW_INSECURE_TARGETS', () => {
  const insecure = { allowInsecure: true, lookup: resolver({}) };

  it('lifts the scheme, port and address rules', async () => {
    await expect(assertSafeTargetUrl('http://127.0.0.1:3000/hook', insecure)).resolves.toBeInstanceOf(URL);
    await expect(assertSafeTargetUrl('https://[::1]:8443/', insecure)).resolves.toBeInstanceOf(URL);
    await expect(assertSafeTargetUrl('http://receiver.local:8080/', insecure)).resolves.toBeInstanceOf(URL);
  });

  it('still refuses credentials in the URL and other schemes', async () => {
    await expect(assertSafeTargetUrl('http://u:p@127.0.0.1/', insecure)).rejects.toThrow(
      /user name or password/,
    );
    await expect(assertSafeTargetUrl('ftp://127.0.0.1/', insecure)).rejects.toThrow(/https/);
  });
});

describe('isBlockedAddress', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '169.254.169.254',
    '100.127.255.255',
    '198.19.255.255',
    '::1',
    'fe80::1%eth0',
    'garbage',
    '',
    '::ffff:0:127.0.0.1',
    '::ffff:0:0.0.0.0',
    '[::ffff:0:192.168.1.1]',
    '64:ff9b:1::1', // NAT64 local-use prefix
    '2001:db8::1', // documentation
    '127.0.0.1\u0000',
    '1.1.1.1 ',
    '[]',
  ])('blocks %s', (ip) => expect(isBlockedAddress(ip)).toBe(true));
  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:1.1.1.1',
    '::ffff:0:1.1.1.1',
  ])('allows %s', (ip) => expect(isBlockedAddress(ip)).toBe(false));
  it.each([null, undefined, 42, {}, ['127.0.0.1']])('blocks a non-string (%p) without throwing', (ip) =>
    expect(isBlockedAddress(ip)).toBe(true),
  );
});

describe('isBlockedAddress never throws', () => {
  // Every IPv6 range ipaddr.js knows, in a few spellings, plus addresses built from random bits: each
  // one gets an answer (a throw was a 500 on create and a process exit at connect time).
  const samples = [
    '::',
    '::1',
    '::ffff:0:1.2.3.4',
    '::ffff:1.2.3.4',
    '64:ff9b::1.2.3.4',
    '64:ff9b:1::1',
    '100::1',
    '2001::1',
    '2001:2::1',
    '2001:3::1',
    '2001:4:112::1',
    '2001:10::1',
    '2001:20::1',
    '2001:db8::1',
    '2002:102:304::1',
    '3fff::1',
    '5f00::1',
    'fc00::1',
    'fe80::1',
    'ff02::1',
    '2620:4f:8000::1',
  ];
  it.each(samples)('%s', (ip) => expect(typeof isBlockedAddress(ip)).toBe('boolean'));

  it('for random 128-bit addresses', () => {
    let seed = 0x2545f491;
    const next = () => (seed = (seed * 1103515245 + 12345) >>> 0) & 0xffff;
    for (let i = 0; i < 5000; i++) {
      const groups = Array.from({ length: 8 }, (_, g) => (g < 3 && i % 4 === 0 ? 0 : next()).toString(16));
      expect(() => isBlockedAddress(groups.join(':'))).not.toThrow();
    }
  });
});
