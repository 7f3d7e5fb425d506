import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OpenAPIObject } from '@nestjs/swagger';
import { completeOpenApiDocument, DEFAULT_SERVER_URL } from './openapi-document';

const envelope = {
  description: '',
  content: { 'application/json': { schema: { type: 'object', properties: { success: {}, data: {} } } } },
};

const raw = () =>
  ({
    openapi: '3.0.0',
    info: { title: 't', version: '1' },
    paths: {
      '/api/auth/login': {
        post: {
          responses: {
            200: envelope,
            201: { description: '', content: { 'application/json': { schema: { type: 'object' } } } },
          },
        },
      },
      '/api/sdk/tweets': {
        get: {
          security: [{ bearer: [] }],
          parameters: [
            { name: 'limit', in: 'query', required: true, schema: { type: 'number', default: 20 } },
            { name: 'search', in: 'query', required: true, schema: { type: 'string' } },
          ],
          responses: { 200: envelope },
        },
      },
      '/api/sdk/like': {
        post: {
          responses: { 201: envelope, 200: { ...envelope, description: 'Already liked' } },
        },
      },
    },
    'x-webhooks': { 'tweet.created': { post: { responses: { 200: { description: 'ok' } } } } },
  }) as unknown as OpenAPIObject;

describe('completeOpenApiDocument', () => {
  const document = completeOpenApiDocument(raw());
  const login = document.paths['/api/auth/login'].post!;
  const tweets = document.paths['/api/sdk/tweets'].get!;

  it('drops the compiler plugin’s placeholder success beside the enveloped one, keeps described ones', () => {
    expect(Object.keys(login.responses)).toEqual(['200', '413', '415', '500']);
    // a write that takes an Idempotency-Key also answers 400 (a malformed key), 409 and 422
    expect(Object.keys(document.paths['/api/sdk/like'].post!.responses)).toEqual([
      '200',
      '201',
      '400',
      '409',
      '413',
      '415',
      '422',
      '500',
    ]);
  });

  it('documents the Idempotency-Key on writes, never on the anonymous auth routes', () => {
    const header = (operation: { parameters?: unknown[] }) =>
      (operation.parameters ?? []).some((p) => (p as { name: string }).name === 'Idempotency-Key');
    expect(header(document.paths['/api/sdk/like'].post!)).toBe(true);
    expect(header(login)).toBe(false);
  });

  it('documents 413 and 415 with the error body on methods that take a body only', () => {
    expect(login.responses['415']).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBodyDto' } } },
    });
    expect(Object.keys(tweets.responses)).toEqual(['200', '500']);
  });

  it('documents 500 INTERNAL_ERROR on every operation', () => {
    expect(tweets.responses['500']).toMatchObject({
      description: expect.stringMatching(/^INTERNAL_ERROR/),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBodyDto' } } },
    });
  });

  it('declares security on every operation: [] for public ones and webhook deliveries, others untouched', () => {
    expect(login.security).toEqual([]);
    expect(tweets.security).toEqual([{ bearer: [] }]);
    const delivery = (
      document as unknown as Record<string, Record<string, { post: Record<string, unknown> }>>
    )['x-webhooks']['tweet.created'].post;
    expect(delivery).toMatchObject({ security: [], operationId: 'webhook_tweet_created' });
  });

  it('marks a query parameter with a default as optional', () => {
    expect(tweets.parameters).toEqual([
      expect.objectContaining({ name: 'limit', required: false }),
      expect.objectContaining({ name: 'search', required: true }),
    ]);
  });

  it('gives servers and a license', () => {
    expect(document.servers?.[0].url).toBe('{baseUrl}');
    expect(document.info.license?.name).toBe('UNLICENSED');
  });

  it('names the server it is given, else the default configuration’s address', () => {
    expect(document.servers?.[0].variables?.baseUrl.default).toBe(DEFAULT_SERVER_URL);
    const configured = completeOpenApiDocument(raw(), 'https://community.example.com');
    expect(configured.servers?.[0].variables?.baseUrl.default).toBe('https://community.example.com');
  });
});

describe('the published document (clients/typescript/openapi.json, which CI checks against dist/)', () => {
  const published = JSON.parse(
    readFileSync(join(__dirname, '..', '..', 'clients', 'typescript', 'openapi.json'), 'utf8'),
  ) as OpenAPIObject;

  it('has no bare object schema: every body is described field by field', () => {
    const bare: string[] = [];
    const walk = (node: unknown, path: string) => {
      if (node === null || typeof node !== 'object') return;
      const schema = node as Record<string, unknown>;
      const described = ['properties', 'additionalProperties', 'allOf', 'oneOf', 'anyOf'].some(
        (key) =>
          schema[key] !== undefined && !(key === 'properties' && Object.keys(schema[key]!).length === 0),
      );
      if (schema.type === 'object' && !described) bare.push(path);
      for (const [key, value] of Object.entries(schema)) walk(value, `${path}/${key}`);
    };
    walk(published, '#');
    expect(bare).toEqual([]);
  });

  it('gives every operation a security declaration and one enveloped success', () => {
    for (const [path, item] of Object.entries(published.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const label = `${method.toUpperCase()} ${path}`;
        expect({ label, security: Array.isArray(operation.security) }).toEqual({ label, security: true });
        const successes = Object.keys(operation.responses).filter((status) => status.startsWith('2'));
        expect({ label, successes: successes.length > 0 }).toEqual({ label, successes: true });
      }
    }
  });
});
