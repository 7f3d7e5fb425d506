import {
  BadRequestException,
  ForbiddenException,
  HttpException,
  ServiceUnavailableException,
} from '@nestjs/common';
import { Prisma } from '../../generated/prisma/client';
import { AppError, Errors, MAX_VALIDATION_DETAILS } from './app-error';
import { toErrorResponse } from './error-response';

function fastifyError(code: string, statusCode: number, message = 'raw fastify text') {
  return Object.assign(new Error(message), { code, statusCode, name: 'FastifyError' });
}

function prismaError(code: string) {
  return new Prisma.PrismaClientKnownRequestError('db said no', { code, clientVersion: 'test' });
}

describe('toErrorResponse (error bodies of docs/product-decisions.md#1-responses-and-errors)', () => {
  it('keeps an AppError: status, code, message, extra fields and headers', () => {
    expect(toErrorResponse(Errors.featureNotAvailable('webhooks'))).toEqual({
      status: 403,
      headers: {},
      body: {
        success: false,
        code: 'FEATURE_NOT_AVAILABLE',
        error: "The community's plan does not include the 'webhooks' feature",
        featureKey: 'webhooks',
      },
    });
    expect(toErrorResponse(Errors.rateLimited(7))).toEqual({
      status: 429,
      headers: { 'retry-after': '7' },
      body: { success: false, code: 'RATE_LIMITED', error: 'Too many requests', retryAfter: 7 },
    });
    expect(toErrorResponse(Errors.validation([{ field: 'slug', message: 'slug is bad' }])).body).toEqual({
      success: false,
      code: 'VALIDATION_ERROR',
      error: 'slug is bad',
      details: [{ field: 'slug', message: 'slug is bad' }],
    });
    expect(toErrorResponse(Errors.validation([])).body.error).toBe('Validation failed');
    expect(toErrorResponse(new AppError(500, 'WEBHOOK_TEST_FAILED', 'boom', { data: 1 })).body).toMatchObject(
      {
        code: 'WEBHOOK_TEST_FAILED',
        data: 1,
      },
    );
  });

  it('maps unique violations to 409 and missing records to 404, revealing nothing of the query', () => {
    const conflict = toErrorResponse(prismaError('P2002'));
    expect(conflict.status).toBe(409);
    expect(conflict.body.code).toBe('CONFLICT');
    expect(conflict.body.error).not.toContain('db said no');
    expect(toErrorResponse(prismaError('P2025'))).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    expect(toErrorResponse(prismaError('P2003'))).toMatchObject({
      status: 500,
      body: { code: 'INTERNAL_ERROR' },
    });
  });

  it("maps Nest's HttpExceptions by status, joining class-validator style message lists", () => {
    expect(toErrorResponse(new BadRequestException(['a is bad', 'b is bad'])).body).toEqual({
      success: false,
      code: 'VALIDATION_ERROR',
      error: 'a is bad; b is bad',
    });
    expect(toErrorResponse(new ForbiddenException('nope'))).toMatchObject({
      status: 403,
      body: { code: 'FORBIDDEN', error: 'nope' },
    });
    expect(toErrorResponse(new HttpException('teapot', 418))).toMatchObject({
      status: 418,
      body: { code: 'VALIDATION_ERROR' },
    });
    expect(toErrorResponse(new ServiceUnavailableException({ database: 'down' }))).toMatchObject({
      status: 503,
      body: { code: 'SERVICE_UNAVAILABLE', details: { database: 'down' } },
    });
  });

  it("hides a 5xx HttpException's message", () => {
    expect(toErrorResponse(new HttpException('secret internals', 502))).toEqual({
      status: 500,
      headers: {},
      body: { success: false, code: 'INTERNAL_ERROR', error: 'Internal server error' },
    });
  });

  it("gives Fastify's own errors the codes and messages of docs/api.md#http-contract", () => {
    expect(toErrorResponse(fastifyError('FST_ERR_CTP_INVALID_JSON_BODY', 400)).body).toEqual({
      success: false,
      code: 'VALIDATION_ERROR',
      error: 'Malformed JSON body',
    });
    expect(toErrorResponse(fastifyError('FST_ERR_CTP_EMPTY_JSON_BODY', 400)).body.error).toBe(
      'Malformed JSON body',
    );
    expect(toErrorResponse(fastifyError('FST_ERR_CTP_BODY_TOO_LARGE', 413))).toMatchObject({
      status: 413,
      body: { code: 'PAYLOAD_TOO_LARGE', error: 'Request body is larger than 1 MiB' },
    });
    expect(toErrorResponse(fastifyError('FST_ERR_CTP_INVALID_MEDIA_TYPE', 415))).toMatchObject({
      status: 415,
      body: { code: 'UNSUPPORTED_MEDIA_TYPE', error: 'Unsupported content type: send application/json' },
    });
    expect(toErrorResponse(fastifyError('FST_ERR_SOMETHING', 400, 'plain')).body.error).toBe('plain');
  });

  it('answers anything unknown with a bare 500 INTERNAL_ERROR', () => {
    for (const thrown of [new Error('stack and secrets'), 'a string', undefined, { statusCode: 400 }]) {
      expect(toErrorResponse(thrown)).toEqual({
        status: 500,
        headers: {},
        body: { success: false, code: 'INTERNAL_ERROR', error: 'Internal server error' },
      });
    }
  });
});

describe('validation details', () => {
  it(`lists at most ${MAX_VALIDATION_DETAILS} and counts the rest`, () => {
    const details = Array.from({ length: 110_000 }, (_, i) => ({
      field: `k${i}`,
      message: `k${i} is not a known field`,
    }));
    const { body } = toErrorResponse(Errors.validation(details));
    expect(body.details).toEqual(details.slice(0, MAX_VALIDATION_DETAILS));
    expect(body.detailsOmitted).toBe(110_000 - MAX_VALIDATION_DETAILS);
    expect(body.error).toBe(
      `${details
        .slice(0, MAX_VALIDATION_DETAILS)
        .map((d) => d.message)
        .join('; ')}; and ${110_000 - MAX_VALIDATION_DETAILS} more`,
    );
    expect(JSON.stringify(body).length).toBeLessThan(4_000);
  });

  it('says nothing of omitted details when there are none', () => {
    const details = Array.from({ length: MAX_VALIDATION_DETAILS }, (_, i) => ({
      field: `f${i}`,
      message: 'bad',
    }));
    expect(toErrorResponse(Errors.validation(details)).body).not.toHaveProperty('detailsOmitted');
  });
});
