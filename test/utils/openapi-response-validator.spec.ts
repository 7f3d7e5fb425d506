import type { OpenAPIObject } from '@nestjs/swagger';
import { OpenApiResponseValidator, type ObservedResponse } from './openapi-response-validator';

const document = {
  openapi: '3.0.0',
  info: { title: 't', version: '1' },
  paths: {
    '/api/sdk/tweets/{id}': {
      get: {
        responses: {
          200: {
            description: '',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['success', 'data'],
                  properties: {
                    success: { type: 'boolean', enum: [true] },
                    data: { $ref: '#/components/schemas/TweetDto' },
                  },
                },
              },
            },
          },
          404: {
            description: '',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBodyDto' } } },
          },
        },
      },
    },
  },
  components: {
    schemas: {
      TweetDto: {
        type: 'object',
        required: ['id', 'content', 'editedAt'],
        properties: {
          id: { type: 'string', format: 'uuid' },
          content: { type: 'string' },
          editedAt: { type: 'string', format: 'date-time', nullable: true },
        },
      },
      ErrorBodyDto: {
        type: 'object',
        required: ['success', 'error', 'code'],
        properties: {
          success: { type: 'boolean', enum: [false] },
          error: { type: 'string' },
          code: { type: 'string' },
        },
      },
    },
  },
} as unknown as OpenAPIObject;

const tweet = { id: '0b6a3f1e-5c2d-4e8f-9a1b-2c3d4e5f6a7b', content: 'hello', editedAt: null };
const answer = (overrides: Partial<ObservedResponse>): ObservedResponse => ({
  method: 'GET',
  route: '/api/sdk/tweets/:id',
  status: 200,
  contentType: 'application/json; charset=utf-8',
  payload: JSON.stringify({ success: true, data: tweet }),
  ...overrides,
});

describe('OpenApiResponseValidator', () => {
  const validator = new OpenApiResponseValidator(document);

  it('accepts a body that matches the schema of its status (a nullable field null included)', () => {
    expect(validator.check(answer({}))).toEqual({ kind: 'valid', operation: 'GET /api/sdk/tweets/{id}' });
    const error = JSON.stringify({ success: false, error: 'Not found', code: 'NOT_FOUND' });
    expect(validator.check(answer({ status: 404, payload: error })).kind).toBe('valid');
  });

  it('flags a wrong body with the path of each mismatch', () => {
    const wrong = JSON.stringify({ success: true, data: { ...tweet, id: 'not-a-uuid', content: 5 } });
    expect(validator.check(answer({ payload: wrong }))).toMatchObject({
      kind: 'violation',
      operation: 'GET /api/sdk/tweets/{id}',
      status: 200,
      problem: 'body does not match the documented schema',
      errors: [
        expect.stringMatching(/^\/data\/id must match format "uuid"/),
        expect.stringMatching(/^\/data\/content must be string/),
      ],
    });
  });

  it('flags a field the document does not list (bodies are documented exactly)', () => {
    const extra = JSON.stringify({ success: true, data: { ...tweet, secret: 'x' } });
    expect(validator.check(answer({ payload: extra }))).toMatchObject({
      kind: 'violation',
      errors: [
        expect.stringContaining('/data must NOT have additional properties {"additionalProperty":"secret"}'),
      ],
    });
  });

  it('flags a status the operation does not document, whatever the body', () => {
    const error = JSON.stringify({ success: false, error: 'Unsupported', code: 'UNSUPPORTED_MEDIA_TYPE' });
    expect(validator.check(answer({ status: 415, payload: error }))).toEqual({
      kind: 'violation',
      operation: 'GET /api/sdk/tweets/{id}',
      status: 415,
      problem: 'undocumented status',
    });
    expect(validator.check(answer({ status: 204, contentType: undefined, payload: '' }))).toMatchObject({
      problem: 'undocumented status',
    });
  });

  it('flags a route the document lacks, and skips only unmatched paths, the docs, the portal page, its icon and HEAD', () => {
    expect(validator.check(answer({ route: '/api/sdk/secrets/:id' }))).toMatchObject({
      kind: 'violation',
      operation: 'GET /api/sdk/secrets/{id}',
      problem: 'undocumented operation',
    });
    expect(validator.check(answer({ route: undefined, status: 404 }))).toEqual({ kind: 'skipped' });
    expect(validator.check(answer({ route: '/api/docs-json' }))).toEqual({ kind: 'skipped' });
    expect(validator.check(answer({ route: '/api/docs/swagger-ui.css', contentType: 'text/css' }))).toEqual({
      kind: 'skipped',
    });
    expect(validator.check(answer({ route: '/portal/*', contentType: 'text/html' }))).toEqual({
      kind: 'skipped',
    });
    expect(validator.check(answer({ route: '/portalx' }))).toMatchObject({ kind: 'violation' });
    expect(validator.check(answer({ route: '/favicon.ico', status: 301 }))).toEqual({ kind: 'skipped' });
    expect(validator.check(answer({ route: '/favicon.icox' }))).toMatchObject({ kind: 'violation' });
    expect(validator.check(answer({ method: 'HEAD' }))).toEqual({ kind: 'skipped' });
  });

  it('flags a JSON body on a status documented without one', () => {
    const bare = {
      ...document,
      paths: { '/api/x': { delete: { responses: { 204: { description: '' } } } } },
    };
    const check = new OpenApiResponseValidator(bare as unknown as OpenAPIObject).check(
      answer({ method: 'DELETE', route: '/api/x', status: 204, payload: '{}' }),
    );
    expect(check).toMatchObject({ kind: 'violation', problem: 'JSON body where none is documented' });
  });
});
