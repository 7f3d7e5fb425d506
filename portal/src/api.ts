/** The portal's calls: same origin, Bearer session, the contract's envelope and error body. */
export interface ApiErrorDetail {
  field: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly details: ApiErrorDetail[] = [],
    /** what some errors carry besides the message, e.g. a failed test's logged attempt */
    readonly data?: unknown,
  ) {
    super(message);
  }
  /** The API's messages by field, for showing beside each input. */
  fieldMessages(): Record<string, string> {
    const byField: Record<string, string> = {};
    for (const detail of this.details) byField[detail.field] ??= detail.message;
    return byField;
  }
}

/**
 * The signed-in session, mutated in place when renewed (so that views holding it keep working without
 * re-rendering). A password sign-in lives in memory only: it keeps the refresh token and renews the access
 * token with it, rotating it as the client libraries do. A portal link's session has no refresh token and
 * simply ends; it is also kept in the tab's sessionStorage (see storePortalSession) so that a reload does not
 * need a new link. Sign out revokes either on the server (docs/product-decisions.md#2-identities-login-api-keys).
 */
export interface Session {
  token: string;
  /** password sign-in only: single use, replaced by every renewal */
  refreshToken?: string;
  /** when to renew the access token (ms since the epoch), a little before it expires */
  renewAt?: number;
  /** set by a portal link: the only community this session may open */
  communityId?: string;
  /** portal link only: when its access token expires (ms since the epoch); it cannot be renewed */
  expiresAt?: number;
  /** the renewal under way: two at once would re-use one refresh token, which ends the session */
  renewing?: Promise<void>;
  /** called once the session is refused for good (revoked, or its refresh token no longer works) */
  onEnded?: () => void;
}

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
  /** seconds */
  expiresIn: number;
}

/** Renew at 90 % of the access token's lifetime, so that a call rarely meets an expired one. */
const RENEW_AT_FRACTION = 0.9;

/** A password sign-in's session from POST /auth/login's (or a renewal's) answer. */
export function sessionFromPair(pair: TokenPair): Session {
  const session: Session = { token: '' };
  adoptPair(session, pair);
  return session;
}

function adoptPair(session: Session, pair: TokenPair): void {
  session.token = pair.accessToken;
  session.refreshToken = pair.refreshToken;
  session.renewAt = Date.now() + pair.expiresIn * 1000 * RENEW_AT_FRACTION;
}

/** Rotates the refresh token into a new pair; one renewal at a time per session. */
function renew(session: Session): Promise<void> {
  session.renewing ??= (async () => {
    try {
      const pair = await send<TokenPair>(null, 'POST', '/auth/refresh-token', {
        refreshToken: session.refreshToken,
      });
      adoptPair(session, pair);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) session.onEnded?.();
      throw err;
    } finally {
      session.renewing = undefined;
    }
  })();
  return session.renewing;
}

/**
 * A call with the session's access token. A password session renews it first when due, and once
 * more on a 401 (an access token that expired meanwhile); a session refused for good ends.
 */
export async function api<T>(
  session: Session | null,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<T> {
  if (!session) return send<T>(null, method, path, body);
  if (session.renewing) await session.renewing;
  if (session.refreshToken && session.renewAt !== undefined && Date.now() >= session.renewAt) {
    await renew(session);
  }
  const sentWith = session.token;
  try {
    return await send<T>(sentWith, method, path, body);
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 401) throw err;
    if (!session.refreshToken) {
      session.onEnded?.();
      throw err;
    }
    // renewed by another call meanwhile, or renewed now: either way one more try with the new token
    if (session.token === sentWith) await (session.renewing ?? renew(session));
    return send<T>(session.token, method, path, body);
  }
}

/** A community's branding, as the portal link exchange answers it (PATCH /api/sdk/community/branding sets it). */
export interface Branding {
  logoUrl: string | null;
  faviconUrl: string | null;
  primaryColor: string | null;
  accentColor: string | null;
}

/** POST /api/webhooks/portal-sessions: a portal link's session. */
export interface PortalSessionAnswer {
  accessToken: string;
  expiresIn: number;
  communityId: string;
  communityName: string;
  communitySlug: string;
  branding: Branding;
}

/**
 * Exchanges a portal link's token for its session, telling the server which community the page is for
 * (`pin`, its URL's `?community=`): a link of another community is refused (403) before it is spent, so it
 * still opens its own community's page (docs/api.md#webhook-portal). 'other-community' is that refusal.
 */
export async function exchangePortalLink(
  token: string,
  pin: string | null,
): Promise<PortalSessionAnswer | 'other-community'> {
  try {
    return await send<PortalSessionAnswer>(
      null,
      'POST',
      '/webhooks/portal-sessions',
      pin === null ? { token } : { token, community: pin },
    );
  } catch (err) {
    if (err instanceof ApiError && err.status === 403) return 'other-community';
    throw err;
  }
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

/** Ends the session on the server (every API instance refuses its tokens within a second). */
export async function signOut(session: Session): Promise<void> {
  await api(session, 'POST', '/auth/logout', {});
}

async function send<T>(
  token: string | null,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`/api${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(
      'The service could not be reached. Check your connection and try again.',
      0,
      'NETWORK',
    );
  }
  const text = await response.text();
  let parsed: { success?: boolean; data?: T; error?: string; code?: string; details?: ApiErrorDetail[] } = {};
  try {
    parsed = text ? JSON.parse(text) : {};
  } catch {
    parsed = {};
  }
  if (!response.ok || parsed.success === false) {
    throw new ApiError(
      parsed.error ?? `The service answered ${response.status} ${response.statusText}`,
      response.status,
      parsed.code ?? 'ERROR',
      parsed.details ?? [],
      parsed.data,
    );
  }
  return parsed.data as T;
}

export interface Webhook {
  id: string;
  url: string;
  description: string;
  events: string[];
  isActive: boolean;
  disabledAt: string | null;
  consecutiveFailures: number;
  lastSuccessAt: string | null;
  /** custom headers sent with every delivery: name → value as every read shows it, masked ("…" and its last 4 characters) */
  headers: Record<string, string>;
  /** deliveries per second across every worker; null: no limit */
  rateLimit: number | null;
  /** fifo: one delivery in flight at a time, in the order events were committed; unordered: in parallel */
  ordering: 'unordered' | 'fifo';
  createdAt: string;
  /** in the list only: attempts that ended in the last 24 h, and the successful ones */
  attempts24h?: number;
  succeeded24h?: number;
}

export interface Delivery {
  id: string;
  messageId: string;
  eventType: string;
  attempt: number;
  status: 'PENDING' | 'SUCCESS' | 'FAILED';
  responseStatus: number | null;
  responseBody: string | null;
  durationMs: number | null;
  error: string | null;
  /** when the attempt was written: for a retry, when the attempt before it failed */
  createdAt: string;
  /** when the request went out; null while the attempt waits */
  sentAt: string | null;
  /** when a waiting attempt is due; null once it is closed */
  nextAttemptAt: string | null;
  /** sent by the test route (webhook.test, or an event type's example): never retried, resent or recovered */
  test: boolean;
  /** when the message's content was expunged on request: payload and responseBody are then null for good */
  expungedAt: string | null;
  payload: Record<string, unknown> | null;
}

/** POST …/rotate-secret: the new secret, shown once, and until when the earlier ones keep signing. */
export interface RotatedSecret {
  endpointId: string;
  secret: string;
  rotatedAt: string;
  previousSecretsExpireAt: string;
}

/** One event of an endpoint's log (GET …/messages): its latest attempt's state, and every attempt of it. */
export interface Message {
  /** the webhook-id a receiver sees, the same on every attempt */
  messageId: string;
  eventType: string;
  /** the latest attempt's state */
  status: Delivery['status'];
  test: boolean;
  attemptCount: number;
  /** when the first and the latest attempt were written */
  firstAttemptAt: string;
  lastAttemptAt: string;
  lastSentAt: string | null;
  /** when the waiting latest attempt is due; null once it is closed */
  nextAttemptAt: string | null;
  lastResponseStatus: number | null;
  /** when its content was expunged on request; it cannot be resent */
  expungedAt: string | null;
  /** newest first */
  attempts: Delivery[];
}

/** A page of messages: not counted (that would read the whole log); `hasMore` says whether more follow. */
export interface MessagePage {
  items: Message[];
  limit: number;
  offset: number;
  hasMore: boolean;
}

export interface EventType {
  name: string;
  description: string;
  schema: object;
  example: object;
}

export interface Community {
  id: string;
  name: string;
  slug: string;
  role: string;
}

/** A time in the viewer's own time zone. */
export function localTime(iso: string | null): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

/** GET …/webhooks/{id}/stats: the endpoint's figures per hour (docs/api.md#webhooks, "Figures"). */
export type FigurePeriod = '24h' | '7d';

export interface Figures {
  attempts: number;
  succeeded: number;
  failed: number;
  /** 0–1; null without attempts */
  successRate: number | null;
  /** estimates inside fixed latency bins; null without attempts */
  p50Ms: number | null;
  p95Ms: number | null;
}

export interface EndpointFigures {
  period: FigurePeriod;
  bucketSeconds: number;
  /** every bucket of the period, oldest first, empty ones with zeros */
  buckets: (Figures & { start: string })[];
  totals: Figures;
}
