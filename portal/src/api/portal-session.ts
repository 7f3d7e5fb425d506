import { ApiError, call, client, type Session } from './client';
import type { Branding, PortalSession } from './types';

/**
 * Exchanges a portal link's token for its session, telling the server which community the page is for
 * (`pin`, its URL's `?community=`): a link of another community is refused (403) before it is spent, so it
 * still opens its own community's page (docs/api.md#webhook-portal). 'other-community' is that refusal.
 */
export async function exchangePortalLink(
  token: string,
  pin: string | null,
): Promise<PortalSession | 'other-community'> {
  try {
    return await call(null, (headers) =>
      client.POST('/api/webhooks/portal-sessions', {
        body: pin === null ? { token } : { token, community: pin },
        headers,
      }),
    );
  } catch (err) {
    if (err instanceof ApiError && err.status === 403) return 'other-community';
    throw err;
  }
}

/** Ends the session on the server (every API instance refuses its tokens within a second). */
export async function signOut(session: Session): Promise<void> {
  await call(session, (headers) => client.POST('/api/auth/logout', { headers }));
}

/** A portal link's session as the tab keeps it across reloads. */
export interface StoredPortalSession {
  token: string;
  /** ms since the epoch */
  expiresAt: number;
  communityId: string;
  communityName: string;
  /** kept by this version on: a session stored before has none (only the id then matches the page's URL) */
  communitySlug?: string;
  branding?: Branding;
}

/**
 * sessionStorage, not localStorage or a cookie: it belongs to this tab alone and is gone when the tab
 * closes, so a portal link's session neither spreads to other tabs nor outlives the visit, and a cookie
 * would also travel with every request. Only a portal link's access token is kept (it lives PORTAL_SESSION_TTL,
 * an hour by default, and is never renewed): a password sign-in's refresh token would let whoever reads the
 * storage keep renewing the session for weeks, so that one stays in memory.
 */
const STORAGE_KEY = 'webhook-portal-session';

/** Keeps a portal link's session for a reload of this tab; a browser that refuses storage only loses that. */
export function storePortalSession(stored: StoredPortalSession): void {
  try {
    window.sessionStorage.setItem(STORAGE_KEY, JSON.stringify(stored));
  } catch {
    // storage disabled or full: the session still works until the page is left
  }
}

export function forgetPortalSession(): void {
  try {
    window.sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // nothing was stored
  }
}

/**
 * The session this tab kept, while it is unexpired; an expired or unreadable one is dropped.
 * `expired` says one was dropped for its age, so the page can say why it asks for a new link.
 */
export function restorePortalSession(): { stored: StoredPortalSession | null; expired: boolean } {
  let stored: Partial<StoredPortalSession> | null = null;
  try {
    stored = JSON.parse(window.sessionStorage.getItem(STORAGE_KEY) ?? 'null') as Partial<StoredPortalSession>;
  } catch {
    stored = null;
  }
  if (!stored) return { stored: null, expired: false };
  const { token, expiresAt, communityId, communityName, communitySlug, branding } = stored;
  const complete =
    typeof token === 'string' &&
    typeof expiresAt === 'number' &&
    typeof communityId === 'string' &&
    typeof communityName === 'string';
  if (complete && Date.now() < expiresAt) {
    const kept: StoredPortalSession = { token, expiresAt, communityId, communityName };
    if (typeof communitySlug === 'string') kept.communitySlug = communitySlug;
    if (branding && typeof branding === 'object') kept.branding = branding;
    return { stored: kept, expired: false };
  }
  forgetPortalSession();
  return { stored: null, expired: complete };
}
