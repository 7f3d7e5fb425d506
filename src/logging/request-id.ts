import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The id of the HTTP request being served (the caller's X-Request-Id or a generated uuid, the
 * `reqId` of its log lines), available to code deep below the controller without passing it down:
 * the outbox stores it with each event so that an operator can follow one request to every
 * delivery it caused.
 */
const requestIdStorage = new AsyncLocalStorage<string>();

/** The current request's id; undefined outside a request (CLI, worker, start-up). */
export function currentRequestId(): string | undefined {
  return requestIdStorage.getStore();
}

/**
 * Runs `fn` as if serving the request `id`. The API's onRequest hook runs the rest of each
 * request inside it (configureHttpApp): every hook, guard and handler after it, and every await
 * below them, keeps the id; Fastify's body parsing keeps it too (it runs the parser in an
 * AsyncResource made inside the scope). Tests and replays of a request's work call it directly.
 */
export function runWithRequestId<T>(id: string, fn: () => T): T {
  return requestIdStorage.run(id, fn);
}
