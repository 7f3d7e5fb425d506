import type { Session } from '../api/client';
import { restorePortalSession, type StoredPortalSession } from '../api/portal-session';
import type { Branding } from '../api/types';

/** What the page shows on load and whom for: a portal link, a kept session, the community its URL names. */

/** The community the portal shows; a portal link's session brings its branding. */
export interface ShownCommunity {
  id: string;
  name: string;
  slug?: string;
  branding?: Branding;
}

/** The longest delay setTimeout keeps (about 24.8 days): a longer one would fire at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export const EXPIRED = 'Your portal session has expired. Open a new portal link to continue.';

/** A portal link's token, from the URL's fragment (never sent to a server). */
export function linkToken(): string | null {
  return new URLSearchParams(window.location.hash.slice(1)).get('token');
}

export function portalSession(stored: StoredPortalSession): Session {
  return { token: stored.token, communityId: stored.communityId, expiresAt: stored.expiresAt };
}

export function shownCommunity(stored: StoredPortalSession): ShownCommunity {
  const { communityId: id, communityName: name, communitySlug: slug, branding } = stored;
  return { id, name, slug, branding };
}

/**
 * The community the page's URL names (a portal link's `?community=`, an id or a slug): the server let only
 * that community's allowed origins frame the page, so it is the only community the page may show
 * (docs/product-decisions.md#10-webhook-portal-embedding). Null: the URL names none.
 */
export function pinnedCommunity(): string | null {
  const value = new URLSearchParams(window.location.search).get('community')?.trim().toLowerCase();
  return value ? value : null;
}

/** Whether another page shows this one in a frame (a cross-origin parent may refuse the comparison). */
export function isFramed(): boolean {
  try {
    return window.self !== window.top;
  } catch {
    return true;
  }
}

/** Whether the community is the one the page's URL names, when it names one. */
export function matchesPin(pin: string | null, community: { id: string; slug?: string }): boolean {
  return pin === null || pin === community.id.toLowerCase() || pin === community.slug?.toLowerCase();
}

export const OTHER_COMMUNITY =
  "This page is for another community than your portal session, so it does not show that session's " +
  'webhooks. Open the webhook portal again from the app of the community you want to manage.';
const FRAMED_WITHOUT_COMMUNITY =
  'This page is shown inside another site without naming its community, so it shows nothing. ' +
  'Open the webhook portal with a portal link.';

/**
 * A load of the page opens a portal link in the address bar, else the session this tab kept, if unexpired.
 * A session for another community than the URL names is not shown (the page may be framed by that other
 * community's app); a framed page that names no community shows nothing (the server's frame-ancestors
 * 'none' stops such a frame before this runs: this is the second lock).
 */
export function initialState(): {
  stored: StoredPortalSession | null;
  notice: string | null;
  refused: string | null;
} {
  const pin = pinnedCommunity();
  if (pin === null && isFramed()) return { stored: null, notice: null, refused: FRAMED_WITHOUT_COMMUNITY };
  if (linkToken()) return { stored: null, notice: null, refused: null };
  const { stored, expired } = restorePortalSession();
  if (stored && !matchesPin(pin, { id: stored.communityId, slug: stored.communitySlug }))
    return { stored: null, notice: null, refused: OTHER_COMMUNITY };
  return { stored, notice: expired ? EXPIRED : null, refused: null };
}
