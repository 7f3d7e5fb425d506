import type { SecretKeyRing, StoredSecret } from '../../../../common/crypto/secret-cipher';

/** An endpoint's custom headers as the user wrote them: name → value. */
export type CustomHeaders = Record<string, string>;

/** How the set is stored (the `custom_headers` column): one sealed JSON text, base64 fields. */
export interface SealedHeaders {
  keyId: string;
  iv: string;
  ciphertext: string;
  authTag: string;
}

export const MAX_CUSTOM_HEADERS = 20;
export const MAX_HEADER_VALUE_BYTES = 1024;

/** An HTTP token (RFC 9110 `token`): what a header name may be made of. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Names the platform sets itself, or that describe the connection rather than the message: a custom
 * value would break the signature, the body's framing or the hop. Compared lowercased.
 */
const REFUSED_NAMES = new Set([
  'content-type',
  'content-length',
  'host',
  'user-agent',
  'connection',
  'transfer-encoding',
  'te',
  'upgrade',
  'keep-alive',
  'trailer',
  'traceparent',
  'tracestate',
]);
const REFUSED_PREFIXES = ['webhook-', 'proxy-'];

export function isRefusedHeaderName(name: string): boolean {
  const lower = name.toLowerCase();
  return REFUSED_NAMES.has(lower) || REFUSED_PREFIXES.some((prefix) => lower.startsWith(prefix));
}

/**
 * What is wrong with a set of custom headers, one sentence per rule broken, or an empty list. The
 * refused names are all named, so one answer tells the user everything to fix.
 */
export function customHeaderProblems(headers: CustomHeaders): string[] {
  const problems: string[] = [];
  const names = Object.keys(headers);
  if (names.length > MAX_CUSTOM_HEADERS)
    problems.push(`headers holds ${names.length} headers; at most ${MAX_CUSTOM_HEADERS} are allowed`);
  const notTokens = names.filter((name) => !TOKEN.test(name));
  if (notTokens.length > 0)
    problems.push(
      `headers names must be HTTP tokens (letters, digits and !#$%&'*+-.^_\`|~): ${notTokens.map((n) => JSON.stringify(n)).join(', ')}`,
    );
  const refused = names.filter((name) => TOKEN.test(name) && isRefusedHeaderName(name));
  if (refused.length > 0)
    problems.push(
      `headers may not set ${refused.join(', ')}: the platform sets these itself (webhook-*, content-type, content-length, host, user-agent, traceparent, tracestate) or they belong to the connection (connection, transfer-encoding, te, upgrade, keep-alive, trailer, proxy-*)`,
    );
  const seen = new Map<string, string>();
  for (const name of names) {
    const lower = name.toLowerCase();
    const earlier = seen.get(lower);
    if (earlier !== undefined) problems.push(`headers names ${earlier} and ${name} are the same header`);
    seen.set(lower, name);
  }
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string') problems.push(`headers.${name} must be a string`);
    else if (/[\r\n\0]/.test(value)) problems.push(`headers.${name} must not contain CR, LF or NUL`);
    else if (Buffer.byteLength(value, 'utf8') > MAX_HEADER_VALUE_BYTES)
      problems.push(`headers.${name} is longer than ${MAX_HEADER_VALUE_BYTES} bytes`);
  }
  return problems;
}

/** How a read shows a value: its last 4 characters after an ellipsis, or the ellipsis alone when short. */
export function maskHeaderValue(value: string): string {
  const chars = [...value];
  return chars.length < 9 ? '…' : `…${chars.slice(-4).join('')}`;
}

export function maskHeaders(headers: CustomHeaders): CustomHeaders {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, maskHeaderValue(value)]));
}

/** Seals the set as one value; null for an empty set (nothing stored). */
export function sealHeaders(ring: SecretKeyRing, headers: CustomHeaders): SealedHeaders | null {
  if (Object.keys(headers).length === 0) return null;
  const sealed = ring.encrypt(JSON.stringify(headers));
  const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
  return {
    keyId: sealed.keyId,
    iv: b64(sealed.iv),
    ciphertext: b64(sealed.ciphertext),
    authTag: b64(sealed.authTag),
  };
}

export function toStoredSecret(sealed: SealedHeaders): StoredSecret {
  return {
    keyId: sealed.keyId,
    iv: Buffer.from(sealed.iv, 'base64'),
    ciphertext: Buffer.from(sealed.ciphertext, 'base64'),
    authTag: Buffer.from(sealed.authTag, 'base64'),
  };
}

/** The set as the user wrote it; `{}` when nothing is stored. Throws when the value will not open. */
export function openHeaders(ring: SecretKeyRing, sealed: SealedHeaders | null | undefined): CustomHeaders {
  if (!sealed) return {};
  return JSON.parse(ring.decrypt(toStoredSecret(sealed))) as CustomHeaders;
}
