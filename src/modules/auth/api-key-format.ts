import { createHash, randomInt, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const API_KEY_PREFIX = 'cpk_';
const KEY_PATTERN = /^cpk_([0-9A-Za-z]{12})_([0-9A-Za-z]{32})$/;

function base62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** A new key `cpk_<keyId 12>_<secret 32>` (base62); only keyId and the secret's SHA-256 are stored. */
export function generateApiKey(): { key: string; keyId: string; secretHash: string } {
  const keyId = base62(12);
  const secret = base62(32);
  return { key: `${API_KEY_PREFIX}${keyId}_${secret}`, keyId, secretHash: sha256Hex(secret) };
}

export function parseApiKey(key: string): { keyId: string; secret: string } | null {
  const match = KEY_PATTERN.exec(key);
  return match ? { keyId: match[1], secret: match[2] } : null;
}

export function secretMatches(secret: string, storedHash: string): boolean {
  const a = Buffer.from(sha256Hex(secret), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Looks like an API key anywhere it should not be (a query string). */
export function looksLikeApiKey(value: string): boolean {
  return value.startsWith(API_KEY_PREFIX);
}
