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
 * The signed-in session, kept in memory only and mutated in place when renewed (so that views
 * holding it keep working without re-rendering). A password sign-in keeps the refresh token and
 * renews the access token with it, rotating it as the client libraries do; a portal link's session
 * has no refresh token and simply ends. Sign out revokes it on the server
 * (docs/product-decisions.md#2-identities-login-api-keys).
 */
export interface Session {
  token: string;
  /** password sign-in only: single use, replaced by every renewal */
  refreshToken?: string;
  /** when to renew the access token (ms since the epoch), a little before it expires */
  renewAt?: number;
  /** set by a portal link: the only community this session may open */
  communityId?: string;
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
  createdAt: string;
  nextAttemptAt: string | null;
  payload: Record<string, unknown> | null;
}

export interface DeliveryPage {
  items: Delivery[];
  limit: number;
  offset: number;
  total: number;
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
