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

export interface Session {
  token: string;
  /** set by a portal link: the only community this session may open */
  communityId?: string;
}

export async function api<T>(
  session: Session | null,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (session) headers.authorization = `Bearer ${session.token}`;
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
