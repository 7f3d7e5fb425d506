import type { FastifyInstance, FastifyRequest } from 'fastify';
import { currentRequestScope } from '../logging/request-id';
import { responseErrorCode } from '../logging/error-code';
import { startSpan, tracingEnabled, type TraceSpan } from './tracer';

/** The requests that may change data, and so raise events whose deliveries continue their trace. */
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const SPAN = Symbol('traceSpan');
type TracedRequest = FastifyRequest & { [SPAN]?: TraceSpan };

/** The request's span, if it has one (its completion log line names it). */
export function requestSpan(request: FastifyRequest): TraceSpan | undefined {
  return (request as TracedRequest)[SPAN];
}

/**
 * With tracing on, every POST, PUT, PATCH and DELETE under /api/ gets a span of its own trace, kept in
 * the request scope (the outbox stores its trace context with each event, log lines carry its ids)
 * and ended once the answer has gone. A caller's `traceparent` header is not followed: the API is a
 * public edge, and an outside caller must not decide what is sampled. With tracing off no hook is
 * added. Called after the hook that opens the request scope.
 *
 * Attributes: the method and route template (never the URL itself, which may carry a credential),
 * the request id, the status code and the error code (docs/product-decisions.md#1-responses-and-errors).
 */
export function traceWriteRequests(fastify: FastifyInstance): void {
  if (!tracingEnabled()) return;
  fastify.addHook('onRequest', (request, _reply, done) => {
    const scope = currentRequestScope();
    if (scope && WRITES.has(request.method) && request.url.startsWith('/api/')) {
      const route = request.routeOptions.url;
      const span = startSpan(route ? `${request.method} ${route}` : request.method, {
        kind: 'server',
        attributes: {
          'http.request.method': request.method,
          'http.route': route,
          'app.request_id': request.id,
        },
      });
      scope.span = span;
      (request as TracedRequest)[SPAN] = span;
    }
    done();
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const span = requestSpan(request);
    if (span) {
      const status = reply.statusCode;
      span.setAttributes({
        'http.response.status_code': status,
        'app.error_code': responseErrorCode(reply.raw),
      });
      span.end(status >= 500 ? `HTTP ${status}` : null);
    }
    done();
  });
  fastify.addHook('onRequestAbort', (request, done) => {
    requestSpan(request)?.end('aborted by the client');
    done();
  });
}
