import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Level, Logger } from 'pino';
import { responseErrorCode } from './error-code';
import { requestSpan } from '../tracing/request-span';

/**
 * Anything shaped like an API key (`cpk_…`, up to the next URL delimiter), wherever it sits: a
 * path segment, a query value, a fragment. Percent-encoded too (`cpk%5F…`), since a client may
 * encode the underscore.
 */
const API_KEY_IN_URL = /cpk(?:_|%5f)[^/?&#=;,\s]*/i;
const API_KEYS_IN_URL = new RegExp(API_KEY_IN_URL.source, 'gi');

/**
 * The URL as it may be logged: query parameters named like credentials are masked whatever their
 * value, and an API key is masked wherever it appears, path included.
 */
export function redactUrl(url: string | undefined): string | undefined {
  if (!url) return url;
  const q = url.indexOf('?');
  const path = (q < 0 ? url : url.slice(0, q)).replace(API_KEYS_IN_URL, '[REDACTED]');
  if (q < 0) return path;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const [name, value] of params) {
    if (/key|token|secret|password/i.test(name) || API_KEY_IN_URL.test(value)) params.set(name, '[REDACTED]');
  }
  return `${path}?${params.toString().replace(API_KEYS_IN_URL, '[REDACTED]')}`;
}

/** 5xx are `error`, 4xx `warn`, the rest `info`. */
export function requestLogLevel(statusCode: number): Level {
  if (statusCode >= 500) return 'error';
  return statusCode >= 400 ? 'warn' : 'info';
}

/** `GET /api/sdk/tweets 403 FEATURE_NOT_AVAILABLE`: the line a person reads; fields stay for machines. */
export function requestLogMessage(method: string, url: string, statusCode: number, code?: string): string {
  return lineText(method, redactUrl(url), statusCode, code);
}

function lineText(method: string, maskedUrl: string | undefined, statusCode: number, code?: string): string {
  return `${method} ${maskedUrl} ${statusCode}${code ? ` ${code}` : ''}`;
}

/** The fields that say which request a line is about, its URL masked once. */
function requestFields(request: FastifyRequest, maskedUrl: string | undefined) {
  const fields = { reqId: request.id, req: { id: request.id, method: request.method, url: maskedUrl } };
  const span = requestSpan(request);
  return span ? { ...fields, traceId: span.traceId, spanId: span.spanId } : fields;
}

/** Polled by load balancers and orchestrators every few seconds: its lines would drown the rest. */
const UNLOGGED_PATHS = new Set(['/api/health']);

function logCompleted(logger: Logger, request: FastifyRequest, reply: FastifyReply): void {
  const statusCode = reply.statusCode;
  const level = requestLogLevel(statusCode);
  // Checked first: a line the configured level drops costs nothing (no URL parsed to mask it).
  if (!logger.isLevelEnabled(level) || UNLOGGED_PATHS.has(request.url)) return;
  const code = responseErrorCode(reply.raw);
  const url = redactUrl(request.url);
  logger[level](
    {
      ...requestFields(request, url),
      res: { statusCode },
      responseTime: Math.round(reply.elapsedTime),
      ...(code ? { code } : {}),
    },
    lineText(request.method, url, statusCode, code),
  );
}

/**
 * One line per request, written once its response has gone (off the request's own latency):
 * `info` for 2xx/3xx, `warn` for 4xx, `error` for 5xx, with the error body's `code`; a request
 * whose client went away first gets a `warn` line saying so. Fastify hooks rather than a
 * middleware: pino-http's middleware made two child loggers per request
 * (bench/README.md#other-reads-benchread-routesmjs).
 */
export function logRequests(fastify: FastifyInstance, logger: Logger): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    logCompleted(logger, request, reply);
    done();
  });
  fastify.addHook('onRequestAbort', (request, done) => {
    if (logger.isLevelEnabled('warn')) {
      const url = redactUrl(request.url);
      logger.warn(requestFields(request, url), `${request.method} ${url} aborted by the client`);
    }
    done();
  });
}
