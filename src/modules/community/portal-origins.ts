/**
 * The origins a community lets frame its webhook portal (docs/api.md#embedding-the-portal): they go verbatim
 * into the page's `frame-ancestors`, so each must be exactly an origin, spelled only with characters that
 * cannot end a CSP source (`;`, `,`, a quote or a space would let one value add directives of its own).
 */
export const MAX_PORTAL_ALLOWED_ORIGINS = 10;

/** https://, a host (DNS labels, or an IPv6 literal), an optional port, nothing after. */
const ORIGIN_SHAPE = /^https:\/\/(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

/** The ports a frame's origin can have; WHATWG parsing refuses more than 65535, but takes 0 (and `:00`). */
const MIN_PORT = 1;
const MAX_PORT = 65535;

/**
 * The https origin `value` spells, normalised as a browser compares it (lower-case host, an IDN in its
 * xn-- form, the default port dropped, so `:443` and `:0443` are no port), or null for anything else:
 * another scheme, a path (even `/`), a query, a fragment, credentials, a wildcard, a port outside
 * 1–65535 (no page is served from port 0: such a source in frame-ancestors would only mislead).
 */
export function parsePortalOrigin(value: unknown): string | null {
  if (typeof value !== 'string' || !/^https:\/\/[^/?#@\s*\\]+$/i.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.port !== '' && !(Number(url.port) >= MIN_PORT && Number(url.port) <= MAX_PORT)) return null;
  return ORIGIN_SHAPE.test(url.origin) ? url.origin : null;
}
