import { CommunityPlatformError, errorFromResponse } from './errors.js';
import type { TokenPair } from './types.js';

export interface RetryInfo {
  method: string;
  path: string;
  /** 1 for the first retry. */
  retry: number;
  delayMs: number;
  /**
   * `rate-limited`: a 429; `network`: no answer came; `key-in-use`: a 409 IDEMPOTENCY_KEY_IN_USE, the
   * service still running the first request with this call's Idempotency-Key.
   */
  reason: 'rate-limited' | 'network' | 'key-in-use';
  error: CommunityPlatformError;
  /** The call's Idempotency-Key, on the routes that take one: every retry sends it again. */
  idempotencyKey?: string;
}

/** The per-call options of a route that takes an `Idempotency-Key` (every write but the auth routes). */
export interface IdempotencyOptions {
  /**
   * The key to send: 1 to 255 printable ASCII characters without spaces (the service answers 400
   * VALIDATION_ERROR to anything else). Without it the client makes a fresh random one (a UUID) per call.
   * Give your own to make one logical write once across calls, processes or restarts: store it with the
   * intent and send it again.
   */
  idempotencyKey?: string;
}

export interface ClientOptions {
  /**
   * The service's base address, such as `https://community.example.com`:
   * the client appends `/api/...` itself. A base ending in `/api` or `/api/v1` is refused.
   */
  baseUrl: string;
  /** An API key (`cpk_...`), sent as X-Api-Key on the routes that take one. */
  apiKey?: string;
  /** A login access token, sent as `Authorization: Bearer`. */
  accessToken?: string;
  /** With it, a 401 on a Bearer call renews the pair once through /api/auth/refresh-token and retries. */
  refreshToken?: string;
  /** Called with every new token pair (login, refresh, renewal on 401), so the app can store it. */
  onTokens?: (tokens: TokenPair) => void | Promise<void>;
  /**
   * Community id or slug, sent as X-Tenant-Id on every call (tenant resolution:
   * docs/product-decisions.md#3-tenancy-roles-permissions-plans).
   */
  communityId?: string;
  /**
   * Retries of one call, whatever their reason: a 429 (any call), a network error (GET, PUT, DELETE, and
   * every call with an Idempotency-Key) and a 409 IDEMPOTENCY_KEY_IN_USE. Default 2; 0 turns retries off.
   */
  maxRetries?: number;
  /** First delay after a network error, doubled on each further retry. Default 500 ms. */
  retryBaseDelayMs?: number;
  /** A 429 or 409 whose Retry-After asks for longer than this is not retried. Default 60 000 ms. */
  maxRetryDelayMs?: number;
  /** Called before each retry (logging, metrics, tests). */
  onRetry?: (info: RetryInfo) => void;
  /** The fetch to use; the global one by default (Node 20+, browsers). */
  fetch?: typeof fetch;
  /** How the client waits between retries; replaceable so tests need not wait. */
  sleep?: (ms: number) => Promise<void>;
  /** Extra headers for every call. */
  headers?: Record<string, string>;
}

/** Which credential a route takes: `any` prefers the API key, `bearer` routes take only a login token. */
export type AuthMode = 'any' | 'bearer' | 'none';

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined | null>;
  body?: unknown;
  auth?: AuthMode;
  /**
   * Present when the route takes an `Idempotency-Key` (its operation in the service's document lists the
   * header; the generated methods pass it): the call sends the given key or a fresh one, the same on each
   * of its retries, and a network error or a 409 IDEMPOTENCY_KEY_IN_USE is retried whatever the method.
   */
  idempotency?: IdempotencyOptions;
}

/** Methods that may be sent again after a network error without a key: doing them twice does them once. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
const KEY_IN_USE = 'IDEMPOTENCY_KEY_IN_USE';
const VERSIONED_OR_API_SUFFIX = /\/api(\/v\d+)?$/i;

/** The base address without trailing slashes; refuses one the client would turn into unmatched paths. */
export function normalizeBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(
      `baseUrl must be an absolute http(s) address such as https://community.example.com, got "${baseUrl}"`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`baseUrl must be an http or https address, got "${baseUrl}"`);
  }
  const path = url.pathname.replace(/\/+$/, '');
  const suffix = VERSIONED_OR_API_SUFFIX.exec(path);
  if (suffix) {
    throw new TypeError(
      `baseUrl "${baseUrl}" ends in ${suffix[0]}: give the service's base address without it ` +
        `(for example "${url.origin}${path.slice(0, suffix.index)}"). The client appends /api/ itself, and ` +
        'the service has no versioned routes: /api/v1/... paths match nothing and answer 400 or 401.',
    );
  }
  return `${url.origin}${path}`;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A fresh Idempotency-Key: a random (version 4) UUID from the platform's cryptographic generator.
 * `crypto.randomUUID` is missing from browsers' insecure (http:) pages, hence the fallback on
 * `getRandomValues`, which they all have.
 */
export function newIdempotencyKey(): string {
  const webCrypto = globalThis.crypto;
  if (typeof webCrypto?.randomUUID === 'function') return webCrypto.randomUUID();
  const bytes = webCrypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The transport: authentication, JSON envelope, errors, retries and token renewal. */
export class HttpClient {
  readonly baseUrl: string;
  private apiKey?: string;
  private accessToken?: string;
  private refreshToken?: string;
  private readonly options: ClientOptions;
  private readonly fetchImpl: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;
  /** One renewal at a time: a refresh token is single use, so concurrent 401s share it. */
  private renewal?: Promise<void>;

  constructor(options: ClientOptions) {
    this.baseUrl = normalizeBaseUrl(options.baseUrl);
    this.options = options;
    this.apiKey = options.apiKey;
    this.accessToken = options.accessToken;
    this.refreshToken = options.refreshToken;
    const given = options.fetch ?? globalThis.fetch;
    if (typeof given !== 'function') throw new TypeError('No fetch available: pass options.fetch');
    // Browsers refuse fetch called with another `this`.
    this.fetchImpl = (input, init) => given(input, init);
    this.sleep = options.sleep ?? realSleep;
  }

  /** The tokens the client holds now (after a login or a renewal). */
  get tokens(): { accessToken?: string; refreshToken?: string } {
    return { accessToken: this.accessToken, refreshToken: this.refreshToken };
  }

  async setTokens(tokens: TokenPair): Promise<void> {
    this.accessToken = tokens.accessToken;
    this.refreshToken = tokens.refreshToken;
    await this.options.onTokens?.(tokens);
  }

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const maxRetries = Math.max(0, this.options.maxRetries ?? 2);
    const url = this.url(path, options.query);
    // One key per call, chosen before the first attempt: every retry below (network, 409, 429, renewal
    // on 401) sends the same one, so the service runs the write at most once and replays its answer.
    const idempotencyKey = options.idempotency
      ? (options.idempotency.idempotencyKey ?? newIdempotencyKey())
      : undefined;
    // Without a key only a method that is idempotent by itself may be sent again when no answer came:
    // the service may have done a POST whose answer was lost.
    const retryNetwork = idempotencyKey !== undefined || IDEMPOTENT.has(method);
    let retries = 0;
    let renewed = false;
    const retry = async (delayMs: number, reason: RetryInfo['reason'], error: CommunityPlatformError) => {
      retries += 1;
      this.options.onRetry?.({ method, path, retry: retries, delayMs, reason, error, idempotencyKey });
      await this.sleep(delayMs);
    };
    for (;;) {
      const { headers, usedBearer } = this.headers(options);
      if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
      let response: Response;
      let body: unknown;
      try {
        response = await this.fetchImpl(url, {
          method,
          headers,
          body: options.body === undefined ? undefined : JSON.stringify(options.body),
        });
        body = await readBody(response);
      } catch (cause) {
        const error =
          cause instanceof CommunityPlatformError
            ? cause
            : new CommunityPlatformError({
                message: `${method} ${path} failed before the service answered: ${(cause as Error)?.message ?? cause}`,
                status: 0,
                code: 'NETWORK_ERROR',
                idempotencyKey,
                cause,
              });
        // Whether the request was refused, cut mid-way or its answer lost, a keyed retry is safe: the
        // service replays a finished write and answers 409 (retried below) while it still runs.
        if (error.code === 'NETWORK_ERROR' && retryNetwork && retries < maxRetries) {
          await retry((this.options.retryBaseDelayMs ?? 500) * 2 ** retries, 'network', error);
          continue;
        }
        throw error;
      }
      if (response.ok) {
        const envelope = body as { success?: unknown; data?: unknown } | undefined;
        return (envelope && typeof envelope === 'object' && 'data' in envelope ? envelope.data : body) as T;
      }
      const error = errorFromResponse(response, body, idempotencyKey);
      // A 429 is refused before the service does anything, so any method may be sent again; a 409
      // IDEMPOTENCY_KEY_IN_USE says the first request with this key still runs: its answer will be
      // replayed once it is done.
      const reason =
        response.status === 429
          ? 'rate-limited'
          : response.status === 409 && error.code === KEY_IN_USE && idempotencyKey !== undefined
            ? 'key-in-use'
            : undefined;
      if (reason && retries < maxRetries) {
        const delayMs = Math.ceil((error.retryAfter ?? 1) * 1000);
        if (delayMs <= (this.options.maxRetryDelayMs ?? 60_000)) {
          await retry(delayMs, reason, error);
          continue;
        }
      }
      if (response.status === 401 && usedBearer && !renewed && this.refreshToken) {
        renewed = true;
        await this.renew();
        continue;
      }
      throw error;
    }
  }

  /** Trades the refresh token for a new pair (POST /api/auth/refresh-token) and hands it to onTokens. */
  async renew(): Promise<void> {
    this.renewal ??= (async () => {
      try {
        const pair = await this.request<TokenPair>('POST', '/api/auth/refresh-token', {
          auth: 'none',
          body: { refreshToken: this.refreshToken },
        });
        await this.setTokens(pair);
      } finally {
        this.renewal = undefined;
      }
    })();
    return this.renewal;
  }

  private url(path: string, query: RequestOptions['query']): string {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null) params.append(name, String(value));
    }
    const search = params.toString();
    return `${this.baseUrl}${path}${search ? `?${search}` : ''}`;
  }

  private headers(options: RequestOptions): { headers: Record<string, string>; usedBearer: boolean } {
    const headers: Record<string, string> = { accept: 'application/json', ...this.options.headers };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (this.options.communityId) headers['x-tenant-id'] = this.options.communityId;
    const auth = options.auth ?? 'any';
    let usedBearer = false;
    if (auth === 'any' && this.apiKey) {
      headers['x-api-key'] = this.apiKey;
    } else if (auth !== 'none' && this.accessToken) {
      headers.authorization = `Bearer ${this.accessToken}`;
      usedBearer = true;
    }
    return { headers, usedBearer };
  }
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (cause) {
    if (!response.ok) return { error: text.slice(0, 500) };
    throw new CommunityPlatformError({
      message: `The service answered ${response.status} with a body that is not JSON`,
      status: response.status,
      code: 'INVALID_RESPONSE',
      requestId: response.headers.get('x-request-id') ?? undefined,
      cause,
    });
  }
}
