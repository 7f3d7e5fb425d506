import type { Pool, PoolClient } from 'pg';
import { currentRequestScope, runInRequestScope } from '../logging/request-id';

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
 * Runs `fn` with the current request's bound connection out of its sight: its statements take the pool.
 * For work that serves several requests at once (a batch of their reads), which starts from the scope of
 * whichever request came first: in that one's transaction, the others would read what it has not
 * committed, and fail with it when its key turned out to be another's (every statement behind a refused
 * claim fails, docs/idempotency.md#how-it-holds-across-instances-and-crashes).
 */
export function withoutBoundConnection<T>(fn: () => T): T {
  const scope = currentRequestScope();
  return scope?.boundConnection ? runInRequestScope({ ...scope, boundConnection: undefined }, fn) : fn();
}

/** The part of Prisma's request batching (its client's internal dataloader) that keepBatchesApart changes. */
interface PrismaBatching {
  options: { batchBy: (request: { transaction?: { kind?: string } }) => string | undefined };
  dispatchBatches: () => void;
}

/**
 * Prisma batches the findUnique calls made in one turn of the event loop, whoever makes them, into one
 * statement, and sends every batch of that turn from the scope of the turn's first call. A request with a
 * bound connection would then run other requests' reads in its transaction, or have its own read on
 * another's (where its uncommitted writes are not seen, or which a refused claim has aborted: the read
 * fails `25P02` and the request that was running answers 500). So here a call made with a bound
 * connection is never batched: it runs alone, at once, on its connection; and batches are sent with any
 * bound connection out of sight (withoutBoundConnection), on the pool. Throws at start-up if a Prisma
 * upgrade moved what it changes.
 */
export function keepBatchesApart(client: object): void {
  const batching = (client as { _requestHandler?: { dataloader?: Partial<PrismaBatching> } })._requestHandler
    ?.dataloader;
  if (typeof batching?.options?.batchBy !== 'function' || typeof batching.dispatchBatches !== 'function')
    throw new Error(
      "Prisma's request batching is not where src/prisma/request-transaction.ts (keepBatchesApart) expects it",
    );
  const batchBy = batching.options.batchBy;
  batching.options.batchBy = (request) => {
    if (!boundConnection()) return batchBy(request);
    // an array $transaction is a batch of its own, which would be sent on the pool, outside the
    // request's transaction: a keyed request uses an interactive one
    if (request.transaction?.kind === 'batch')
      throw new Error('an array $transaction cannot join a request bound to its transaction');
    return undefined;
  };
  const dispatch = batching.dispatchBatches.bind(batching);
  batching.dispatchBatches = () => withoutBoundConnection(dispatch);
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
