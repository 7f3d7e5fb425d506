import type { Pool, PoolClient } from 'pg';
import { currentRequestScope } from '../logging/request-id';

/**
 * One request's writes held in one transaction on one connection (docs/architecture.md#a-requests-transaction):
 * an Idempotency-Key's answer must be committed with the write it answers, and the service's
 * writes are spread over many stores, some one raw statement on `PrismaService.pool`, others a
 * Prisma interactive transaction. While a request has a bound connection, both run on it: a raw
 * statement as it is, a Prisma transaction as a savepoint of the request's transaction. A request
 * without one (every request without the header) takes the pool's path unchanged: one property
 * read of its scope.
 */
export class BoundConnection {
  /** Prisma transactions joined one after the other: a savepoint belongs to one of them at a time. */
  private joined: Promise<void> = Promise.resolve();
  private savepoints = 0;
  /** work to run once the request's transaction has committed (cache invalidations, see runAfterCommit) */
  readonly afterCommit: (() => void)[] = [];

  constructor(readonly client: PoolClient) {}

  /** What `pool.connect()` gives a Prisma interactive transaction inside the request's transaction. */
  async join(): Promise<PoolClient> {
    let done!: () => void;
    const previous = this.joined;
    this.joined = new Promise<void>((resolve) => (done = resolve));
    await previous;
    return joinedClient(this.client, `request_tx_${++this.savepoints}`, done);
  }
}

/** The connection the current request's writes are bound to, if any. */
export function boundConnection(): BoundConnection | undefined {
  return currentRequestScope()?.boundConnection as BoundConnection | undefined;
}

/**
 * Binds `client` (in an open transaction) to the current request: every statement of
 * `routeToBoundConnection`'s pool runs on it until `unbindConnection`. Returns false outside a request.
 */
export function bindConnection(client: PoolClient): BoundConnection | undefined {
  const scope = currentRequestScope();
  if (!scope) return undefined;
  const bound = new BoundConnection(client);
  scope.boundConnection = bound;
  return bound;
}

/** Ends the binding: later statements (work the request left running) take the pool again. */
export function unbindConnection(bound: BoundConnection): void {
  const scope = currentRequestScope();
  if (scope?.boundConnection === bound) scope.boundConnection = undefined;
}

/**
 * Runs `fn` once the current request's transaction has committed the handler's writes, or now when
 * it has none: what must only happen after a commit (telling other instances to re-read a row,
 * queueing a job for a row) waits for the real one, and does not happen when they are rolled back.
 * A keyed request's handler runs before its key's claim is answered (docs/idempotency.md): its
 * effects outside PostgreSQL must come through here.
 */
export function runAfterCommit(fn: () => void): void {
  const bound = boundConnection();
  if (bound) bound.afterCommit.push(fn);
  else fn();
}

/**
 * Makes `pool` run the statements of a request with a bound connection on that connection: its
 * `query` directly, its `connect` (how Prisma starts an interactive transaction) as a savepoint.
 * pg's own `query` calls `connect` with a callback, which always takes the pool.
 */
export function routeToBoundConnection(pool: Pool): Pool {
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  pool.query = ((...args: unknown[]) => {
    const bound = boundConnection();
    return bound ? (bound.client.query as (...a: unknown[]) => unknown)(...args) : query(...args);
  }) as Pool['query'];
  pool.connect = ((...args: unknown[]) => {
    const bound = boundConnection();
    return bound && args.length === 0 ? bound.join() : connect(...args);
  }) as Pool['connect'];
  return pool;
}

/**
 * The bound connection as a transaction's own client: the BEGIN, COMMIT and ROLLBACK Prisma sends
 * become a savepoint, its release and a rollback to it, so a Prisma transaction that fails undoes
 * its own statements and leaves the request's transaction usable; `release` ends the turn.
 */
function joinedClient(client: PoolClient, savepoint: string, done: () => void): PoolClient {
  const asSavepoint: Record<string, string> = {
    BEGIN: `SAVEPOINT ${savepoint}`,
    COMMIT: `RELEASE SAVEPOINT ${savepoint}`,
    ROLLBACK: `ROLLBACK TO SAVEPOINT ${savepoint}`,
  };
  const translate = (config: unknown): unknown => {
    if (typeof config === 'string') return asSavepoint[config] ?? config;
    const text = (config as { text?: string }).text;
    return text !== undefined && asSavepoint[text]
      ? { ...(config as object), text: asSavepoint[text] }
      : config;
  };
  let released = false;
  const joined = {
    query: (config: unknown, ...rest: unknown[]) =>
      (client.query as (...a: unknown[]) => unknown)(translate(config), ...rest),
    on: (event: string, listener: (...a: unknown[]) => void) => (
      client.on(event as 'error', listener),
      joined
    ),
    removeListener: (event: string, listener: (...a: unknown[]) => void) => (
      client.removeListener(event, listener),
      joined
    ),
    release: () => {
      if (released) return;
      released = true;
      done();
    },
  };
  return joined as unknown as PoolClient;
}
