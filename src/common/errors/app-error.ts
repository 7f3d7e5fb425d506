import { HttpStatus } from '@nestjs/common';

export type ErrorCode =
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'FEATURE_NOT_AVAILABLE'
  | 'TENANT_CONTEXT_REQUIRED'
  | 'VALIDATION_ERROR'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_LIMITED'
  | 'SERVICE_UNAVAILABLE'
  | 'WEBHOOK_TEST_FAILED'
  | 'INTERNAL_ERROR';

export interface ValidationDetail {
  field: string;
  message: string;
}

/**
 * The one error type the service throws on purpose. The global filter turns it into the
 * contract's body: {success: false, error, code, ...extra}.
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
  validation: (details: ValidationDetail[], message = 'Validation failed') =>
    new AppError(HttpStatus.BAD_REQUEST, 'VALIDATION_ERROR', message, { details }),
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
  serviceUnavailable: (message: string) =>
    new AppError(HttpStatus.SERVICE_UNAVAILABLE, 'SERVICE_UNAVAILABLE', message),
  rateLimited: (retryAfterSeconds: number) =>
    new AppError(
      HttpStatus.TOO_MANY_REQUESTS,
      'RATE_LIMITED',
      'Too many requests',
      { retryAfter: retryAfterSeconds },
      { 'retry-after': String(retryAfterSeconds) },
    ),
};
