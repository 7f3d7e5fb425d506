import { AsyncLocalStorage } from 'node:async_hooks';
import type { TraceSpan } from '../tracing/tracer';

/**
 * What code deep below the controller may need of the HTTP request being served, without it being
 * passed down: its id (the caller's X-Request-Id or a generated uuid, the `reqId` of its log lines;
 * the outbox stores it with each event so that an operator can follow one request to every
 * delivery it caused), and the database connection its writes are bound to while an
 * Idempotency-Key holds them in one transaction (src/prisma/request-transaction.ts). One store per
 * request, so binding a connection costs a request without the header nothing.
 */
export interface RequestScope {
  readonly id: string;
  /** set by src/prisma/request-transaction.ts only */
  boundConnection?: unknown;
  /**
   * the caller wrote within the read-your-writes window: reads that tolerate lag go to the primary
   * (src/prisma/read-replica.ts; set by the API's ReadYourWritesInterceptor)
   */
  readsFromPrimary?: boolean;
  /**
   * the request's span when tracing is on and it changes data (src/tracing/request-span.ts): its
   * trace context goes into the outbox with each event, its ids onto each log line
   */
  span?: TraceSpan;
}

const requestScopeStorage = new AsyncLocalStorage<RequestScope>();

/** The current request's id; undefined outside a request (CLI, worker, start-up). */
export function currentRequestId(): string | undefined {
  return requestScopeStorage.getStore()?.id;
}

/** The current request's scope; undefined outside a request. */
export function currentRequestScope(): RequestScope | undefined {
  return requestScopeStorage.getStore();
}

/**
 * Runs `fn` as if serving the request `id`. The API's onRequest hook runs the rest of each
 * request inside it (configureHttpApp): every hook, guard and handler after it, and every await
 * below them, keeps the id; Fastify's body parsing keeps it too (it runs the parser in an
 * AsyncResource made inside the scope). Tests and replays of a request's work call it directly.
 */
export function runWithRequestId<T>(id: string, fn: () => T): T {
  return requestScopeStorage.run({ id }, fn);
}

/**
 * Runs `fn` in `scope`, a changed copy of the current request's (without its bound connection:
 * src/prisma/request-transaction.ts); the request's own scope is left as it is.
 */
export function runInRequestScope<T>(scope: RequestScope, fn: () => T): T {
  return requestScopeStorage.run(scope, fn);
}
