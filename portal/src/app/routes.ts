import { PORTAL_PATH, PORTAL_SECTIONS } from '../../../src/modules/webhooks/portal/portal-page';

/**
 * The portal's addresses: one per section under the path the API serves the page at (it answers each of
 * them with the page, src/bootstrap/portal-static.ts), so the address bar says which page is shown and a
 * reload keeps it. The page's `?community=` stays on every address: the server frames the page by it.
 */
export type Section = (typeof PORTAL_SECTIONS)[number];

export const paths = {
  home: PORTAL_PATH,
  endpoints: `${PORTAL_PATH}endpoints`,
  endpointLog: `${PORTAL_PATH}endpoints/:webhookId/log`,
  endpointFigures: `${PORTAL_PATH}endpoints/:webhookId/figures`,
  replays: `${PORTAL_PATH}replays`,
  search: `${PORTAL_PATH}search`,
  catalog: `${PORTAL_PATH}catalog`,
  verify: `${PORTAL_PATH}verify`,
} as const satisfies Record<'home' | Section | string, string>;

/** An address of the portal, with the page's community kept and the given query added. */
export function href(path: string, query: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  const community = new URLSearchParams(window.location.search).get('community');
  if (community) params.set('community', community);
  for (const [name, value] of Object.entries(query)) if (value) params.set(name, value);
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

export function endpointLog(webhookId: string): string {
  return paths.endpointLog.replace(':webhookId', encodeURIComponent(webhookId));
}

export function endpointFigures(webhookId: string): string {
  return paths.endpointFigures.replace(':webhookId', encodeURIComponent(webhookId));
}

/** The section an address is in, for the navigation's current mark. */
export function sectionOf(path: string): Section {
  const first = path.slice(PORTAL_PATH.length).split('/')[0];
  return (PORTAL_SECTIONS as readonly string[]).includes(first ?? '') ? (first as Section) : 'endpoints';
}

/**
 * What an address in the endpoints section shows: the list (with one endpoint's log open) or one endpoint's
 * figures. Read here rather than by separate routes so that opening or closing a log keeps the list mounted
 * (an open form, a test's outcome, a secret shown once stay on screen).
 */
export function endpointsView(path: string): { figuresOf: string | null; logOf: string | null } | null {
  if (path === paths.home || path === paths.endpoints || path === `${paths.endpoints}/`)
    return { figuresOf: null, logOf: null };
  const match = new RegExp(`^${paths.endpoints}/([^/]+)/(log|figures)$`).exec(path);
  if (!match) return null;
  const id = decodeURIComponent(match[1]!);
  return match[2] === 'figures' ? { figuresOf: id, logOf: null } : { figuresOf: null, logOf: id };
}
