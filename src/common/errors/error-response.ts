import { HttpException, HttpStatus } from '@nestjs/common';
import { Prisma } from '../../generated/prisma/client';
import { isDatabaseUnavailable } from '../../prisma/database-unavailable';
import { AppError, ErrorCode } from './app-error';

export interface ErrorResponse {
  status: number;
  headers: Record<string, string>;
  body: { success: false; error: string; code: ErrorCode } & Record<string, unknown>;
}

const STATUS_CODES: Partial<Record<number, ErrorCode>> = {
  400: 'VALIDATION_ERROR',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  503: 'SERVICE_UNAVAILABLE',
};

/**
 * Retry-After of a 503 for want of a database: a failover's switch takes seconds, and a client that
 * waits this long between tries keeps the load of its retries low while it lasts.
 */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

/** Fastify's own errors (body parsing, limits) carry a statusCode and an FST_* code. */
interface FastifyLikeError {
  statusCode?: number;
  code?: string;
  message?: string;
}

function fastifyMessage(err: FastifyLikeError): string {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'Malformed JSON body';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'Request body is larger than 1 MiB';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Unsupported content type: send application/json';
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'Content-Length does not match the body';
    default:
      return err.message ?? 'Bad request';
  }
}

/**
 * Maps anything thrown into the error body (docs/product-decisions.md#1-responses-and-errors).
 * Anything it does not recognise is a
 * 500 INTERNAL_ERROR whose message reveals nothing of the cause.
 */
export function toErrorResponse(err: unknown): ErrorResponse {
  if (err instanceof AppError) {
    return {
      status: err.status,
      headers: err.headers,
      body: { success: false, error: err.message, code: err.code, ...err.extra },
    };
  }
  // no server takes the statement now (a failover, a restart): the client retries, with its
  // Idempotency-Key for a write (docs/operations.md#database-failover)
  if (isDatabaseUnavailable(err)) {
    return {
      status: HttpStatus.SERVICE_UNAVAILABLE,
      headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
      body: {
        success: false,
        error: 'The database is not available; retry shortly',
        code: 'SERVICE_UNAVAILABLE',
      },
    };
  }
  if (err instanceof Prisma.PrismaClientKnownRequestError) {
    if (err.code === 'P2002') {
      return simple(HttpStatus.CONFLICT, 'CONFLICT', 'A resource with the same unique value already exists');
    }
    if (err.code === 'P2025') return simple(HttpStatus.NOT_FOUND, 'NOT_FOUND', 'Resource not found');
  }
  if (err instanceof HttpException) {
    const status = err.getStatus();
    const response = err.getResponse();
    const message =
      typeof response === 'string'
        ? response
        : Array.isArray((response as { message?: unknown }).message)
          ? ((response as { message: string[] }).message.join('; ') ?? err.message)
          : ((response as { message?: string }).message ?? err.message);
    const code = STATUS_CODES[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : 'VALIDATION_ERROR');
    // 503 is the one 5xx that says something safe and useful (health: a dependency is down).
    if (status >= 500 && status !== HttpStatus.SERVICE_UNAVAILABLE) return internal();
    const extra =
      status === HttpStatus.SERVICE_UNAVAILABLE && typeof response === 'object' ? { details: response } : {};
    return { status, headers: {}, body: { success: false, error: message, code, ...extra } };
  }
  const fastifyErr = err as FastifyLikeError;
  if (
    typeof fastifyErr?.statusCode === 'number' &&
    fastifyErr.statusCode >= 400 &&
    fastifyErr.statusCode < 500 &&
    typeof fastifyErr.code === 'string'
  ) {
    const status = fastifyErr.statusCode;
    return simple(status, STATUS_CODES[status] ?? 'VALIDATION_ERROR', fastifyMessage(fastifyErr));
  }
  return internal();
}

function simple(status: number, code: ErrorCode, error: string): ErrorResponse {
  return { status, headers: {}, body: { success: false, error, code } };
}

function internal(): ErrorResponse {
  return simple(HttpStatus.INTERNAL_SERVER_ERROR, 'INTERNAL_ERROR', 'Internal server error');
}
