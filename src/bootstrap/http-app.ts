import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Logger } from 'nestjs-pino';
import { Errors } from '../common/errors/app-error';
import { toErrorResponse } from '../common/errors/error-response';
import { API_KEY_AUTH, BEARER_AUTH } from '../common/http/api-docs';
import { setResponseErrorCode } from '../logging/error-code';
import { StartupDetailAtDebug } from '../logging/startup-detail-logger';
import { looksLikeApiKey } from '../modules/auth/api-key-format';

export const BODY_LIMIT_BYTES = 1024 * 1024;
const KEY_PARAM = /^(x[-_]?)?api[-_]?key$/i;

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Fastify with the 1 MiB body limit; each request keeps a caller's X-Request-Id or gets a uuid. */
export function createFastifyAdapter(): FastifyAdapter {
  return new FastifyAdapter({
    bodyLimit: BODY_LIMIT_BYTES,
    requestIdHeader: false,
    genReqId: (req: IncomingMessage) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
  });
}

/** An API key in the query string is refused before anything (logs included) sees it. */
function refuseKeyInQuery(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const leaked = Object.entries(query).some(
    ([name, value]) =>
      KEY_PARAM.test(name) ||
      (typeof value === 'string' && looksLikeApiKey(value)) ||
      (Array.isArray(value) && value.some((v) => typeof v === 'string' && looksLikeApiKey(v))),
  );
  if (!leaked) return done();
  const { status, body } = toErrorResponse(
    Errors.badRequest(
      'API keys are accepted only in the X-Api-Key header, never in the query string',
      'query',
    ),
  );
  setResponseErrorCode(reply.raw, body.code);
  void reply.status(status).send(body);
}

export function buildOpenApiDocument(app: NestFastifyApplication) {
  const config = new DocumentBuilder()
    .setTitle('Community Platform API')
    .setDescription(
      'Multi-tenant community platform. Every success is {success: true, data}; every error is ' +
        '{success: false, error, code} (plus featureKey, details or retryAfter where they apply). ' +
        'Tenant-scoped routes resolve the community from the custom-domain Host, then communityId ' +
        '(path, query, body, X-Community-Id), then X-Tenant-Id, then the token or API key.',
    )
    .setVersion(process.env.npm_package_version ?? '0.1.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, BEARER_AUTH)
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-Api-Key' }, API_KEY_AUTH)
    .build();
  return SwaggerModule.createDocument(app, config);
}

/** Everything the API needs beyond its modules; main.ts and the e2e tests both call it. */
export async function configureHttpApp(app: NestFastifyApplication): Promise<void> {
  // Route mapping and module loading at debug level: at info, ~100 lines buried the start-up banner.
  app.useLogger(new StartupDetailAtDebug(app.get(Logger)));
  app.setGlobalPrefix('api');
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('preValidation', refuseKeyInQuery);
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    done();
  });
  // The API speaks JSON only: a text/plain body is refused with 415 instead of reaching a DTO as a string.
  fastify.removeContentTypeParser('text/plain');
  SwaggerModule.setup('api/docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'api/docs-json',
    yamlDocumentUrl: 'api/docs-yaml',
  });
  app.enableShutdownHooks();
  await app.init();
  // Errors raised by Fastify itself (JSON parsing, body limit, content type) get the contract body too.
  // Set after init(): Nest installs its own handler there, which turns these errors into bare
  // HttpExceptions and loses their FST_* code (so the contract's messages could not be given).
  fastify.setErrorHandler((error, request, reply) => {
    const { status, headers, body } = toErrorResponse(error);
    if (status >= 500) request.log.error({ err: error }, 'Unhandled error');
    setResponseErrorCode(reply.raw, body.code);
    void reply.status(status).headers(headers).send(body);
  });
}
