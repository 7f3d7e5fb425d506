import { HttpStatus } from '@nestjs/common';

/** Every `code` an error body can carry (the OpenAPI document lists them from here). */
export const ERROR_CODES = [
  'UNAUTHORIZED',
  'FORBIDDEN',
  'FEATURE_NOT_AVAILABLE',
  'TENANT_CONTEXT_REQUIRED',
  'VALIDATION_ERROR',
  'NOT_FOUND',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMITED',
  'SERVICE_UNAVAILABLE',
  'WEBHOOK_TEST_FAILED',
  'IDEMPOTENCY_KEY_REUSED',
  'IDEMPOTENCY_KEY_IN_USE',
  'MESSAGE_EXPUNGED',
  'INTERNAL_ERROR',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ValidationDetail {
  field: string;
  message: string;
}

/**
 * The one error type the service throws on purpose. The global filter turns it into the
 * error body: {success: false, error, code, ...extra} (docs/product-decisions.md#1-responses-and-errors).
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const NO_TOKEN_MESSAGE = 'No authentication token provided';
export const INVALID_TOKEN_MESSAGE = 'Invalid or expired token';
export const TENANT_REQUIRED_MESSAGE =
  'Tenant context required: send X-Tenant-Id (or put the community in the path) and check that the route exists';

/** 1048576 → '1 MiB', 16384 → '16 KiB': how a body limit is said in an answer. */
export function formatByteSize(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** The most `details` one answer lists: a body of 110,000 unknown fields once got megabytes of them. */
export const MAX_VALIDATION_DETAILS = 20;

/**
 * 400 VALIDATION_ERROR naming each problem with its field, at most MAX_VALIDATION_DETAILS of them;
 * `detailsOmitted` (and the message) say how many more there were.
 */
function validationFailure(details: ValidationDetail[]): AppError {
  const shown = details.slice(0, MAX_VALIDATION_DETAILS);
  const omitted = details.length - shown.length;
  const message = shown.map((d) => d.message).join('; ') || 'Validation failed';
  return new AppError(
    HttpStatus.BAD_REQUEST,
    'VALIDATION_ERROR',
    omitted > 0 ? `${message}; and ${omitted} more` : message,
    omitted > 0 ? { details: shown, detailsOmitted: omitted } : { details: shown },
  );
}

export const Errors = {
  unauthorized: (message = NO_TOKEN_MESSAGE) =>
    new AppError(HttpStatus.UNAUTHORIZED, 'UNAUTHORIZED', message),
  forbidden: (message = 'You do not have permission to do this') =>
    new AppError(HttpStatus.FORBIDDEN, 'FORBIDDEN', message),
  featureNotAvailable: (featureKey: string) =>
    new AppError(
      HttpStatus.FORBIDDEN,
      'FEATURE_NOT_AVAILABLE',
      `The community's plan does not include the '${featureKey}' feature`,
      { featureKey },
    ),
  tenantRequired: (message = TENANT_REQUIRED_MESSAGE) =>
    new AppError(HttpStatus.BAD_REQUEST, 'TENANT_CONTEXT_REQUIRED', message),
  validation: validationFailure,
  badRequest: (message: string, field?: string) =>
    new AppError(HttpStatus.BAD_REQUEST, 'VALIDATION_ERROR', message, {
      details: field ? [{ field, message }] : [],
    }),
  payloadTooLarge: (limitBytes: number) =>
    new AppError(
      HttpStatus.PAYLOAD_TOO_LARGE,
      'PAYLOAD_TOO_LARGE',
      `Request body is larger than ${formatByteSize(limitBytes)}`,
    ),
  notFound: (what: string) => new AppError(HttpStatus.NOT_FOUND, 'NOT_FOUND', `${what} not found`),
  conflict: (message: string) => new AppError(HttpStatus.CONFLICT, 'CONFLICT', message),
  /** docs/api.md#expunge-a-messages-content */
  messageExpunged: () =>
    new AppError(
      HttpStatus.CONFLICT,
      'MESSAGE_EXPUNGED',
      "This message's content was expunged on request: it cannot be sent again",
    ),
  serviceUnavailable: (message: string) =>
    new AppError(HttpStatus.SERVICE_UNAVAILABLE, 'SERVICE_UNAVAILABLE', message),
  /** docs/idempotency.md#the-rules */
  idempotencyKeyReused: () =>
    new AppError(
      HttpStatus.UNPROCESSABLE_ENTITY,
      'IDEMPOTENCY_KEY_REUSED',
      'This Idempotency-Key was used for another request (method, path or body); send a new key',
    ),
  /** docs/idempotency.md#the-rules */
  idempotencyKeyInUse: () =>
    new AppError(
      HttpStatus.CONFLICT,
      'IDEMPOTENCY_KEY_IN_USE',
      'A request with this Idempotency-Key is still being processed; retry after a moment',
      {},
      { 'retry-after': '1' },
    ),
  rateLimited: (retryAfterSeconds: number) =>
    new AppError(
      HttpStatus.TOO_MANY_REQUESTS,
      'RATE_LIMITED',
      'Too many requests',
      { retryAfter: retryAfterSeconds },
      { 'retry-after': String(retryAfterSeconds) },
    ),
};
