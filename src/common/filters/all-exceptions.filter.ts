import { ArgumentsHost, Catch, ExceptionFilter, Inject, Logger, NotFoundException } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { AppError, Errors } from '../errors/app-error';
import { toErrorResponse } from '../errors/error-response';
import { CREDENTIAL_CHECK, type CredentialCheck } from '../http/credential-check';
import type { AppRequest } from '../http/request-context';
import { setResponseErrorCode } from '../../logging/error-code';

/**
 * The one global exception filter: every error leaves in the error body of
 * docs/product-decisions.md#1-responses-and-errors. An unmatched path
 * (Nest's router NotFoundException, never an AppError) answers 401 without valid credentials and
 * 400 TENANT_CONTEXT_REQUIRED with them, never 404 (docs/product-decisions.md#8-limits-and-unmatched-paths).
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  constructor(@Inject(CREDENTIAL_CHECK) private readonly credentials: CredentialCheck) {}

  async catch(exception: unknown, host: ArgumentsHost): Promise<void> {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<AppRequest>();
    let error = exception;
    if (exception instanceof NotFoundException && !(exception instanceof AppError)) {
      error = (await this.credentials.hasValidCredentials(request))
        ? Errors.tenantRequired()
        : Errors.unauthorized();
    }
    const response = toErrorResponse(error);
    // a handler overruled by its Idempotency-Key failed as meant to; the key's answer replaces this one
    if (response.status >= 500 && !(error instanceof AppError) && !request.handlerOverruled) {
      // Deliberate 5xx answers (WEBHOOK_TEST_FAILED) are outcomes, not faults: only the unexpected is logged.
      this.logger.error({ err: exception }, 'Unhandled error');
    }
    if (reply.sent) return;
    // The request's completion log line carries the code (src/logging/logger.module.ts).
    setResponseErrorCode(reply.raw, response.body.code);
    void reply.status(response.status).headers(response.headers).send(response.body);
  }
}
