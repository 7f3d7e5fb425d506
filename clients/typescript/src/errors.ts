import type { ErrorBody } from './types.js';

/** One entry of a VALIDATION_ERROR's `details`: the field and what is wrong with it. */
export type ErrorDetail = NonNullable<ErrorBody['details']>[number];

/** Codes of failures that happen before the service answers. */
export type ClientErrorCode = 'NETWORK_ERROR' | 'INVALID_RESPONSE';

/**
 * Every failed call: an error answer of the service (`status` is its HTTP status, `code` its error
 * code) or a failure before any answer (`status` 0, `code` NETWORK_ERROR, the fetch error as `cause`).
 */
export class CommunityPlatformError extends Error {
  override readonly name = 'CommunityPlatformError';
  /** HTTP status; 0 when no answer came. */
  readonly status: number;
  /**
   * The service's error code (docs/api.md#http-contract: UNAUTHORIZED, FEATURE_NOT_AVAILABLE, RATE_LIMITED,
   * ...) or NETWORK_ERROR.
   */
  readonly code: string;
  /** The plan feature the community lacks (FEATURE_NOT_AVAILABLE). */
  readonly featureKey?: string;
  /** One entry per bad field (VALIDATION_ERROR). */
  readonly details?: ErrorDetail[];
  /** Seconds to wait before trying again (RATE_LIMITED), from the body or the Retry-After header. */
  readonly retryAfter?: number;
  /** The X-Request-Id the service answered with: quote it when asking an operator. */
  readonly requestId?: string;
  /** The parsed error body as received (WEBHOOK_TEST_FAILED carries the logged attempt in `data`). */
  readonly body?: unknown;
  /**
   * The Idempotency-Key the call sent (routes that take one). After a NETWORK_ERROR or an
   * IDEMPOTENCY_KEY_IN_USE the write may have happened: call again with this key (`{ idempotencyKey }`)
   * to get its answer instead of a second write.
   */
  readonly idempotencyKey?: string;

  constructor(init: {
    message: string;
    status: number;
    code: string;
    featureKey?: string;
    details?: ErrorDetail[];
    retryAfter?: number;
    requestId?: string;
    body?: unknown;
    idempotencyKey?: string;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.featureKey = init.featureKey;
    this.details = init.details;
    this.retryAfter = init.retryAfter;
    this.requestId = init.requestId;
    this.body = init.body;
    this.idempotencyKey = init.idempotencyKey;
  }
}

/** Seconds from a Retry-After header: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

/**
 * The error for a non-2xx answer, from the error body `{success: false, error, code, ...}`
 * (docs/api.md#http-contract).
 */
export function errorFromResponse(
  response: Response,
  body: unknown,
  idempotencyKey?: string,
): CommunityPlatformError {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const retryAfter =
    typeof fields.retryAfter === 'number'
      ? fields.retryAfter
      : parseRetryAfter(response.headers.get('retry-after'), Date.now());
  const code = typeof fields.code === 'string' ? fields.code : `HTTP_${response.status}`;
  const message =
    typeof fields.error === 'string' ? fields.error : `HTTP ${response.status} ${response.statusText}`.trim();
  return new CommunityPlatformError({
    message,
    status: response.status,
    code,
    featureKey: typeof fields.featureKey === 'string' ? fields.featureKey : undefined,
    details: Array.isArray(fields.details) ? (fields.details as ErrorDetail[]) : undefined,
    retryAfter,
    requestId: response.headers.get('x-request-id') ?? undefined,
    body,
    idempotencyKey,
  });
}
