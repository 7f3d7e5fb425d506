import { CommunityPlatformError, errorFromResponse } from './errors.js';
import type { TokenPair } from './types.js';

export interface RetryInfo {
  method: string;
  path: string;
  /** 1 for the first retry. */
  retry: number;
  delayMs: number;
  reason: 'rate-limited' | 'network';
  error: CommunityPlatformError;
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
  /** Retries of a 429 (any call) and of a network error (idempotent calls only). Default 2; 0 turns retries off. */
  maxRetries?: number;
  /** First delay after a network error, doubled on each further retry. Default 500 ms. */
  retryBaseDelayMs?: number;
  /** A 429 whose Retry-After asks for longer than this is not retried. Default 60 000 ms. */
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
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
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
    let retries = 0;
    let renewed = false;
    for (;;) {
      const { headers, usedBearer } = this.headers(options);
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
                cause,
              });
        if (error.code === 'NETWORK_ERROR' && IDEMPOTENT.has(method) && retries < maxRetries) {
          retries += 1;
          const delayMs = (this.options.retryBaseDelayMs ?? 500) * 2 ** (retries - 1);
          this.options.onRetry?.({ method, path, retry: retries, delayMs, reason: 'network', error });
          await this.sleep(delayMs);
          continue;
        }
        throw error;
      }
      if (response.ok) {
        const envelope = body as { success?: unknown; data?: unknown } | undefined;
        return (envelope && typeof envelope === 'object' && 'data' in envelope ? envelope.data : body) as T;
      }
      const error = errorFromResponse(response, body);
      // A 429 is refused before the service does anything, so any method may be sent again.
      if (response.status === 429 && retries < maxRetries) {
        const delayMs = Math.ceil((error.retryAfter ?? 1) * 1000);
        if (delayMs <= (this.options.maxRetryDelayMs ?? 60_000)) {
          retries += 1;
          this.options.onRetry?.({ method, path, retry: retries, delayMs, reason: 'rate-limited', error });
          await this.sleep(delayMs);
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
