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
 * What a value may be made of: visible ASCII (0x21-0x7E), space and tab. HTTP itself also allows bytes
 * 0x80-0xFF, but undici refuses every character above 0xFF (text outside Latin-1 could never be sent)
 * and a receiver may read the others in any encoding, so a value is ASCII or it is refused.
 */
const VALUE_CHARS = /^[\t\x20-\x7e]*$/;
/** An HTTP field value neither begins nor ends with whitespace: a receiver's parser drops it. */
const EDGE_WHITESPACE = /^[\t ]|[\t ]$/;

/** Both value rules as one pattern, for the OpenAPI document: empty, or visible ASCII at both ends. */
export const HEADER_VALUE_PATTERN = '^(?:[!-~](?:[\\t -~]*[!-~])?)?$';

/** How a read masks a value (maskHeaderValue): a value starting so was most likely copied from a read. */
const MASK = '…';

/**
 * Names the platform sets itself, or that describe the connection rather than the message: a custom
 * value would break the signature, the body's framing or the hop (`expect` asks for a 100-continue
 * exchange the HTTP client does not do: every send would fail). Compared lowercased.
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
  'expect',
  'traceparent',
  'tracestate',
]);
const REFUSED_PREFIXES = ['webhook-', 'proxy-'];

export function isRefusedHeaderName(name: string): boolean {
  const lower = name.toLowerCase();
  return REFUSED_NAMES.has(lower) || REFUSED_PREFIXES.some((prefix) => lower.startsWith(prefix));
}

/** One rule a set of custom headers breaks: the headers it is about (none for the set's size), and why. */
export interface HeaderProblem {
  names: string[];
  message: string;
}

/**
 * What is wrong with one value, or null: every delivery would fail (undici refuses the value) or
 * carry something other than what was written. Never quotes the value: it may be a credential.
 */
export function headerValueProblem(value: unknown): string | null {
  if (typeof value !== 'string') return 'must be a string';
  if (!VALUE_CHARS.test(value)) {
    const kind = /[\u0080-\uffff]/.test(value) ? 'a character outside ASCII' : 'a control character';
    const masked = value.startsWith(MASK)
      ? ' (it looks like a value masked by a read: a masked value keeps the stored one only under the name it was read with)'
      : '';
    return `may hold only visible ASCII characters, spaces and tabs, and it has ${kind}${masked}`;
  }
  if (EDGE_WHITESPACE.test(value))
    return 'must not begin or end with a space or tab (HTTP drops them, so the receiver would not get the value as written)';
  if (value.length > MAX_HEADER_VALUE_BYTES) return `is longer than ${MAX_HEADER_VALUE_BYTES} bytes`;
  return null;
}

/** A header's name as a message shows it: as written when a token, quoted otherwise (it may hold anything). */
export function headerNameForMessage(name: string): string {
  return TOKEN.test(name) ? name : JSON.stringify(name);
}

/**
 * What is wrong with a set of custom headers, one problem per rule broken, or an empty list. Every
 * offending header is named, so one answer tells the user everything to fix; the create and PATCH
 * routes and the `webhooks:check-headers` command read the same rules from here.
 */
export function customHeaderProblems(headers: CustomHeaders): HeaderProblem[] {
  const problems: HeaderProblem[] = [];
  const names = Object.keys(headers);
  if (names.length > MAX_CUSTOM_HEADERS)
    problems.push({
      names: [],
      message: `headers holds ${names.length} headers; at most ${MAX_CUSTOM_HEADERS} are allowed`,
    });
  const notTokens = names.filter((name) => !TOKEN.test(name));
  if (notTokens.length > 0)
    problems.push({
      names: notTokens,
      message: `headers names must be HTTP tokens (letters, digits and !#$%&'*+-.^_\`|~): ${notTokens.map(headerNameForMessage).join(', ')}`,
    });
  const refused = names.filter((name) => TOKEN.test(name) && isRefusedHeaderName(name));
  if (refused.length > 0)
    problems.push({
      names: refused,
      message: `headers may not set ${refused.join(', ')}: the platform sets these itself (webhook-*, content-type, content-length, host, user-agent, traceparent, tracestate) or they belong to the connection (connection, transfer-encoding, te, upgrade, keep-alive, trailer, expect, proxy-*)`,
    });
  const seen = new Map<string, string>();
  for (const name of names) {
    const lower = name.toLowerCase();
    const earlier = seen.get(lower);
    if (earlier !== undefined)
      problems.push({
        names: [earlier, name],
        message: `headers names ${earlier} and ${name} are the same header`,
      });
    seen.set(lower, name);
  }
  for (const [name, value] of Object.entries(headers)) {
    const problem = headerValueProblem(value);
    if (problem !== null)
      problems.push({ names: [name], message: `headers.${headerNameForMessage(name)} ${problem}` });
  }
  return problems;
}

/** How a read shows a value: its last 4 characters after an ellipsis, or the ellipsis alone when short. */
export function maskHeaderValue(value: string): string {
  const chars = [...value];
  return chars.length < 9 ? MASK : `${MASK}${chars.slice(-4).join('')}`;
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
