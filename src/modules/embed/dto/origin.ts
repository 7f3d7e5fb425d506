/**
 * The origin (scheme://host[:port], http or https) that `value` spells exactly, normalised the way
 * browsers send the Origin header (lower-case host, default port dropped), or null if it is anything
 * else (a path, a query, credentials, another scheme).
 */
export function parseOrigin(value: unknown): string | null {
  if (typeof value !== 'string' || !/^https?:\/\/[^/?#@\s]+$/i.test(value)) return null;
  try {
    const url = new URL(value);
    return url.hostname ? url.origin : null;
  } catch {
    return null;
  }
}
