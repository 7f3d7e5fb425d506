import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** One answer of `dns.promises.lookup(host, {all: true})`. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a hostname to every address it has (injectable so tests control DNS). */
export type ResolveAll = (hostname: string) => Promise<ResolvedAddress[]>;

export interface TargetUrlOptions {
  /** WEBHOOK_ALLOW_INSECURE_TARGETS: lifts the scheme, port and address rules (development and tests only) */
  allowInsecure: boolean;
  lookup: ResolveAll;
  /** a resolver that does not answer in time counts as "does not resolve" (default 5 s) */
  lookupTimeoutMs?: number;
}

/** A target URL the platform refuses to deliver to; the message says why, in words a user can act on. */
export class UnsafeTargetError extends Error {}

/** IPv6 prefixes that are either routed to IPv4 (checked separately) or not globally routable at all. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
const IPV4_COMPATIBLE_V6 = ipaddr.IPv6.parseCIDR('::/96');
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

function embeddedV4(bytes: number[], offset: number, xor = 0): ipaddr.IPv4 {
  return new ipaddr.IPv4(bytes.slice(offset, offset + 4).map((b) => b ^ xor));
}

function isBlockedV4(ip: ipaddr.IPv4): boolean {
  // Everything ipaddr.js classes as special (loopback, private, linkLocal incl. 169.254.169.254,
  // carrierGradeNat, multicast, unspecified, broadcast, reserved incl. benchmarking and TEST-NETs,
  // as112, amt) is refused: only plain public unicast is a delivery target.
  return ip.range() !== 'unicast';
}

function isBlockedV6(ip: ipaddr.IPv6): boolean {
  const bytes = ip.toByteArray();
  switch (ip.range()) {
    case 'ipv4Mapped':
      return isBlockedV4(ip.toIPv4Address());
    case 'rfc6145':
      // ::ffff:0:a.b.c.d (IPv4-translated, SIIT). ipaddr.js's toIPv4Address() only converts the
      // ::ffff:0:0/96 mapped form and THROWS for this one, so read the last 32 bits directly.
      return isBlockedV4(embeddedV4(bytes, 12));
    case 'rfc6052':
      // 64:ff9b::/96 reaches the embedded IPv4 through NAT64; 64:ff9b:1::/48 is local use only.
      return ip.match(NAT64_WELL_KNOWN) ? isBlockedV4(embeddedV4(bytes, 12)) : true;
    case '6to4':
      return isBlockedV4(embeddedV4(bytes, 2));
    case 'teredo':
      // the Teredo client's IPv4 is stored inverted in the last 32 bits
      return isBlockedV4(embeddedV4(bytes, 12, 0xff));
    case 'unicast':
      // ::a.b.c.d (deprecated IPv4-compatible) and anything outside 2000::/3 is not a public target
      return ip.match(IPV4_COMPATIBLE_V6) || !ip.match(GLOBAL_UNICAST_V6);
    default:
      // loopback, unspecified, linkLocal fe80::/10, uniqueLocal fc00::/7, multicast, reserved, ...
      return true;
  }
}

/**
 * True when `ip` must never be a delivery target. It never throws: unparseable input, and any
 * failure while classifying (a range this code does not know how to unwrap), is blocked, because a
 * check that cannot tell is a refusal. A throw here would be a 500 on create/PATCH and, inside the
 * connect-time lookup, an unhandled rejection that ends the process.
 */
export function isBlockedAddress(ip: unknown): boolean {
  if (typeof ip !== 'string') return true;
  try {
    const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
    if (isIP(bare) === 0) return true;
    const parsed = ipaddr.parse(bare);
    return parsed.kind() === 'ipv4' ? isBlockedV4(parsed as ipaddr.IPv4) : isBlockedV6(parsed as ipaddr.IPv6);
  } catch {
    return true;
  }
}

/** The URL host as an address literal (IPv6 without brackets), or null for a DNS name. */
export function ipLiteralOf(url: URL): string | null {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return isIP(host) === 0 ? null : host;
}

/**
 * The rules that need no DNS: an absolute https URL on port 443 without credentials, and, when the
 * host is an IP literal, a public address. WHATWG parsing has already normalised 2130706433,
 * 0x7f000001, 0177.0.0.1 and 127.1 to 127.0.0.1, so every spelling meets the same check.
 */
export function checkTargetUrlShape(raw: string, allowInsecure: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeTargetError('url must be an absolute URL such as https://example.com/webhooks');
  }
  if (url.protocol !== 'https:' && !(allowInsecure && url.protocol === 'http:')) {
    throw new UnsafeTargetError('url must use https');
  }
  if (url.username !== '' || url.password !== '') {
    throw new UnsafeTargetError('url must not contain a user name or password');
  }
  if (!allowInsecure && url.port !== '' && url.port !== '443') {
    throw new UnsafeTargetError('url must use port 443');
  }
  const literal = ipLiteralOf(url);
  if (!allowInsecure && literal !== null && isBlockedAddress(literal)) {
    throw new UnsafeTargetError(`url points to a non-public address (${literal})`);
  }
  return url;
}

/**
 * Every rule of a webhook target (docs/product-decisions.md#5-webhooks), as checked on create and update: the
 * shape, then, for a DNS name, EVERY address it resolves to must be public. The target itself is
 * never contacted here.
 */
export async function assertSafeTargetUrl(raw: string, options: TargetUrlOptions): Promise<URL> {
  const url = checkTargetUrlShape(raw, options.allowInsecure);
  await assertPublicHost(url, options);
  return url;
}

/**
 * The DNS half of the rules, for any url whose shape was checked (a broker's too): a host name must
 * resolve, and only to public addresses. An IP literal, or insecure targets allowed, passes here.
 */
export async function assertPublicHost(url: URL, options: TargetUrlOptions): Promise<void> {
  if (options.allowInsecure || ipLiteralOf(url) !== null) return;
  let addresses: ResolvedAddress[];
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('DNS timeout')), options.lookupTimeoutMs ?? 5000);
    });
    addresses = await Promise.race([options.lookup(url.hostname), timeout]);
  } catch {
    addresses = [];
  } finally {
    clearTimeout(timer);
  }
  // A resolver's answer is checked as data, never trusted to have the right shape: garbage is a refusal.
  if (!Array.isArray(addresses) || addresses.length === 0) {
    throw new UnsafeTargetError(`url host ${url.hostname} does not resolve`);
  }
  const blocked = addresses.find((a: ResolvedAddress | null) => isBlockedAddress(a?.address));
  if (blocked !== undefined) {
    throw new UnsafeTargetError(
      `url host ${url.hostname} resolves to a non-public address (${String(blocked?.address)})`,
    );
  }
}
