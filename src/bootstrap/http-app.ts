import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifyServerOptions,
  RouteOptions,
} from 'fastify';
import { Errors } from '../common/errors/app-error';
import {
  DEFAULT_JSON_SHAPE_LIMITS,
  findBadStrings,
  jsonShapeViolation,
  queryShapeViolation,
  routeBodyKeyLimit,
} from '../common/http/input-safety';
import { toErrorResponse } from '../common/errors/error-response';
import { runWithRequestId } from '../logging/request-id';
import { JsonText } from '../common/http/json-text';
import { closeAfterRefusedBody } from '../common/http/refused-body-close';
import { successEnvelope, successEnvelopeText } from '../common/http/success-envelope';
import { AppConfig } from '../config/app-config';
import { API_KEY_AUTH, BEARER_AUTH } from '../common/http/api-docs';
import { addValidationLimits } from '../common/http/validation-limits';
import { AppLogger } from '../logging/app-logger';
import { setResponseErrorCode } from '../logging/error-code';
import { logRequests } from '../logging/request-log';
import { StartupDetailAtDebug } from '../logging/startup-detail-logger';
import { HttpMetrics } from '../metrics/http-metrics';
import { looksLikeApiKey } from '../modules/auth/api-key-format';
import { IdempotencyService } from '../modules/idempotency/idempotency.service';
import type { AppRequest } from '../common/http/request-context';
import { addEventSchemas } from '../modules/events/event-schemas';
import { addWebhookFilterSchemas } from '../modules/webhooks/dto/webhook-filter.schema';
import { completeOpenApiDocument, inputClassesOf } from './openapi-document';
import { servePortal } from './portal-static';
import { traceWriteRequests } from '../tracing/request-span';

export const BODY_LIMIT_BYTES = 1024 * 1024;
/**
 * Login, refresh-token and the portal link exchange answer anyone: their bodies are a few hundred
 * bytes, so 16 KiB is ample, and nobody unauthenticated gets to send a megabyte to be parsed.
 */
export const ANONYMOUS_AUTH_BODY_LIMIT_BYTES = 16 * 1024;
/**
 * The anonymous routes that take a credential in their body and get the smaller limit. Keyed on the path, set in an onRoute hook:
 * Fastify fixes a route's bodyLimit when the route is registered and onRoute only sees Fastify's
 * route options (Nest's wrapped handler, not the controller method, so no decorator metadata), and
 * the list stays next to the limit it applies. The hostile-input e2e test sends an over-limit body
 * to each path, so a renamed route cannot silently lose its limit.
 */
export const ANONYMOUS_AUTH_ROUTES: readonly string[] = [
  '/api/auth/login',
  '/api/auth/refresh-token',
  '/api/webhooks/portal-sessions',
];
const KEY_PARAM = /^(x[-_]?)?api[-_]?key$/i;

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;
/** What Fastify sends a serialised object as, and so a body already written as JSON text too. */
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Fastify with the 1 MiB body limit; each request keeps a caller's X-Request-Id or gets a uuid.
 * trustProxy (TRUST_PROXY) decides whether request.ip comes from X-Forwarded-For: the login limits
 * count per client address, so a header believed without a proxy would let a caller pick its own.
 */
/**
 * Fastify errors (JSON parsing, body limit, content type) are answered by the one handler that
 * configureHttpApp installs, with the error body of docs/api.md#http-contract. Nest would install its
 * own first, which turns
 * them into bare HttpExceptions and loses their FST_* code; replacing it afterwards made Fastify warn
 * (FSTWRN004) at every start. So the handler Nest offers is not installed at all.
 */
class ContractFastifyAdapter extends FastifyAdapter {
  override setErrorHandler(): ReturnType<FastifyAdapter['setErrorHandler']> {
    return this.getInstance();
  }

  /**
   * Every value a route handler returns leaves as {success: true, data} (docs/product-decisions.md#1-responses-and-errors). Nest sends
   * each handler's result through this one method (errors go through the exception filter, and a
   * route with @Res() sends its own reply), so the envelope costs nothing per request; as a global
   * interceptor it cost each request two AsyncResource binds and an rxjs chain
   * (bench/README.md#tweets-list-benchtweets-listmjs). A result PostgreSQL wrote as JSON text (JsonText)
   * goes out as that text, in the same envelope.
   */
  override reply(
    response: Parameters<FastifyAdapter['reply']>[0],
    body: unknown,
    statusCode?: number,
  ): ReturnType<FastifyAdapter['reply']> {
    if (body instanceof JsonText) {
      // a handler's Fastify reply, or the raw response Nest wraps in one (FastifyAdapter.isNativeResponse)
      if ('status' in response) (response as FastifyReply).type(JSON_CONTENT_TYPE);
      else response.setHeader('content-type', JSON_CONTENT_TYPE);
      return super.reply(response, successEnvelopeText(body), statusCode);
    }
    return super.reply(response, successEnvelope(body), statusCode);
  }
}

export function createFastifyAdapter(config: Pick<AppConfig, 'trustProxy'>): FastifyAdapter {
  return new ContractFastifyAdapter({
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: config.trustProxy,
    requestIdHeader: false,
    schemaController: { compilersFactory: schemaCompilersOnFirstUse() },
    genReqId: (req: IncomingMessage) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
  });
}

type SchemaCompilers = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

/**
 * Fastify's own schema compilers (ajv for validation, fast-json-stringify for replies), required the
 * first time a route declares a schema. No route of the API does (class-validator validates, Nest
 * serialises), so the API never loads them (docs/architecture.md#what-each-process-loads). Fastify would
 * require both as it starts. They are Fastify's dependencies, so they are required from where it is.
 */
function schemaCompilersOnFirstUse(): SchemaCompilers {
  const fromFastify = createRequire(require.resolve('fastify'));
  const onFirstUse = <F>(selector: string): F => {
    let built: ((...args: unknown[]) => unknown) | undefined;
    const compiler = (...args: unknown[]) => {
      built ??= (fromFastify(selector) as () => (...args: unknown[]) => unknown)();
      return built(...args);
    };
    return compiler as F;
  };
  return {
    buildValidator: onFirstUse<SchemaCompilers['buildValidator']>('@fastify/ajv-compiler'),
    buildSerializer: onFirstUse<SchemaCompilers['buildSerializer']>('@fastify/fast-json-stringify-compiler'),
  };
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

/**
 * Refused in the query string, the path parameters and the body before every Nest guard, naming the
 * field (or the limit):
 * - a query string of more than MAX_KEYS_PER_OBJECT parameters (a body's shape is checked while it
 *   is parsed, see shapeLimitedJsonParser);
 * - NUL characters and lone UTF-16 surrogates in any string (and object key): the tenant guard reads
 *   communityId from all three and would hand a NUL to PostgreSQL (22021, a 500); a lone surrogate
 *   breaks encodeURIComponent and UTF-8 encoding further on.
 * Unmatched paths are left to the not-found handling (401, or 400 TENANT_CONTEXT_REQUIRED: see
 * docs/product-decisions.md#8-limits-and-unmatched-paths).
 */
function refuseUnsafeInput(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  if (request.is404) return done();
  const tooManyParameters = queryShapeViolation(request.query);
  const details = tooManyParameters
    ? [{ field: 'query', message: tooManyParameters }]
    : [
        ...findBadStrings(request.params),
        ...findBadStrings(request.query),
        ...(request.body === undefined ? [] : findBadStrings(request.body)),
      ];
  if (details.length === 0) return done();
  const { status, body } = toErrorResponse(Errors.validation(details));
  void reply.status(status).send(body);
}

/**
 * Fastify's own JSON parser (with its __proto__/constructor poisoning protection, as configured),
 * behind a scan of the text that runs before JSON.parse: a body nested deeper than MAX_JSON_DEPTH, or
 * with more fields than MAX_KEYS_PER_OBJECT in one object or than the route's key limit in all, is a
 * 400 naming the limit, at the cost of one pass over its bytes. Parsing first cost more than the
 * limit protects: a 5,000-deep body was a RangeError 500 in the validation pipe, and a body of
 * 110,000 fields stalled the event loop for every other caller.
 */
function shapeLimitedJsonParser(fastify: FastifyInstance) {
  const { onProtoPoisoning, onConstructorPoisoning } = fastify.initialConfig;
  const parse = fastify.getDefaultJsonParser(onProtoPoisoning ?? 'error', onConstructorPoisoning ?? 'error');
  return (request: FastifyRequest, body: string, done: (err: Error | null, body?: unknown) => void) => {
    const limits = {
      ...DEFAULT_JSON_SHAPE_LIMITS,
      maxKeysPerBody: routeBodyKeyLimit(request.routeOptions.config),
    };
    // a JSON content type with nothing after it (what many HTTP wrappers send on a body-less POST) is
    // no body: routes that take none answer as usual, and one that needs a body names what is missing
    if (body.trim() === '') {
      done(null, undefined);
      return;
    }
    const violation = jsonShapeViolation(body, limits);
    // an Idempotency-Key's request is recognised by its body's bytes (docs/idempotency.md#the-rules)
    if (request.headers['idempotency-key'] !== undefined) (request as AppRequest).rawBody = body;
    if (violation) {
      done(Errors.badRequest(violation, 'body'));
      return;
    }
    parse(request, body, done);
  };
}

/**
 * The service's OpenAPI document. `serverUrl`: the address it names as its server (a running API gives
 * its configured one; the clients' generator none, for a document that does not depend on the machine).
 */
export function buildOpenApiDocument(app: NestFastifyApplication, serverUrl?: string) {
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
  const document = addWebhookFilterSchemas(addEventSchemas(SwaggerModule.createDocument(app, config)));
  return completeOpenApiDocument(addValidationLimits(document, inputClassesOf(app)), serverUrl);
}

/** A provider when the app's modules have it (test apps built from a few modules may not). */
function resolveOptional<T>(app: NestFastifyApplication, type: new (...args: never[]) => T): T | undefined {
  try {
    return app.get(type, { strict: false });
  } catch {
    return undefined;
  }
}

/** Everything the API needs beyond its modules; main.ts and the e2e tests both call it. */
export async function configureHttpApp(app: NestFastifyApplication): Promise<void> {
  // Route mapping and module loading at debug level: at info, a line per route buried the start-up banner.
  const logger = app.get(AppLogger);
  app.useLogger(new StartupDetailAtDebug(logger));
  app.setGlobalPrefix('api');
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('preValidation', refuseKeyInQuery);
  fastify.addHook('preValidation', refuseUnsafeInput);
  // Registered before init(), when Nest adds its routes.
  fastify.addHook('onRoute', (route: RouteOptions) => {
    if (ANONYMOUS_AUTH_ROUTES.includes(route.url)) route.bodyLimit = ANONYMOUS_AUTH_BODY_LIMIT_BYTES;
  });
  const idempotency = resolveOptional(app, IdempotencyService);
  if (idempotency)
    // an Idempotency-Key's answer is stored with the write, from the bytes about to be sent
    fastify.addHook('onSend', (request, reply, payload, done) => {
      if ((request as AppRequest).idempotency === undefined) return done(null, payload);
      idempotency.finish(request as AppRequest, reply, payload).then(
        (answer) => done(null, answer),
        (err: Error) => done(err),
      );
    });
  const httpMetrics = resolveOptional(app, HttpMetrics);
  if (httpMetrics)
    fastify.addHook('onResponse', (request, reply, done) => (httpMetrics.observe(request, reply), done()));
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    runWithRequestId(request.id, done);
  });
  traceWriteRequests(fastify);
  logRequests(fastify, logger.pino);
  // "Try it out" sends to the address this API is configured with (test apps built without config: the default)
  const serverUrl = resolveOptional(app, AppConfig)?.publicBaseUrl;
  SwaggerModule.setup('api/docs', app, () => buildOpenApiDocument(app, serverUrl), {
    jsonDocumentUrl: 'api/docs-json',
    yamlDocumentUrl: 'api/docs-yaml',
  });
  await servePortal(app);
  app.enableShutdownHooks();
  // Errors raised by Fastify itself (JSON parsing, body limit, content type) get the same error body
  // (docs/api.md#http-contract) too; the only error handler of the instance (see ContractFastifyAdapter).
  fastify.setErrorHandler((error, request, reply) => {
    const tooLarge = (error as { code?: string }).code === 'FST_ERR_CTP_BODY_TOO_LARGE';
    const { status, headers, body } = toErrorResponse(
      tooLarge ? Errors.payloadTooLarge(request.routeOptions.bodyLimit ?? BODY_LIMIT_BYTES) : error,
    );
    if (status >= 500) logger.error({ err: error }, 'Unhandled error', 'HTTP');
    setResponseErrorCode(reply.raw, body.code);
    // the rest of a refused body is not read: its connection closes (as Fastify already marks it), but
    // only once the caller could read this answer
    if (tooLarge) {
      void reply.header('connection', 'close');
      closeAfterRefusedBody(request.raw);
    }
    void reply.status(status).headers(headers).send(body);
  });
  await app.init();
  // The API speaks JSON only. Nest registers JSON and form (x-www-form-urlencoded) parsers during
  // init() and Fastify a text/plain one: all go, and every other content type of a request with a
  // body is a 415 UNSUPPORTED_MEDIA_TYPE instead of reaching a DTO as a string or a form.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, shapeLimitedJsonParser(fastify));
}
