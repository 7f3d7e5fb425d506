/**
 * Whether an error means "no database server takes this statement right now" (a failover, a restart,
 * the primary gone, the pool out of connections) rather than a fault of the request or of the code:
 * the API answers those 503 SERVICE_UNAVAILABLE with Retry-After (docs/operations.md#database-failover).
 *
 * The error may come straight from pg (a socket error, a server error with its SQLSTATE, or pg's own
 * Error for a connection that ended) or wrapped by Prisma (its driver adapter's `kind`, its P1xxx
 * codes), so the error and its causes are looked through.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  return someCause(err, 0, unavailable);
}

/** Node's socket errors of a server that is not (or no longer) there. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
]);

/**
 * SQLSTATEs of a server that cannot take the statement now: class 08 (connection exception), a
 * server shutting down or starting (57P01-57P03), too many connections (53300), and a read-only
 * transaction (25006: a standby, or a promoted one pg_auto_failover still holds read-only).
 */
const SERVER_CODES = /^(08...|57P0[1-3]|53300|25006)$/;

/** Prisma's driver-adapter kinds for the same situations. */
const ADAPTER_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
]);

/**
 * Prisma's codes: P1001 cannot reach the server, P1002 it timed out, P1017 it closed the connection,
 * P2024 no pool connection in time.
 */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1017', 'P2024']);

/**
 * P2028 is every fault of Prisma's interactive transactions, and only one of them is the database's: no
 * connection to start the transaction on in time. The others (a transaction that outlived its timeout, one
 * already closed, an unknown id) are the code's: a 500, so that a statement too slow for its transaction is
 * found and fixed rather than answered "try again later" for ever.
 */
const TRANSACTION_NOT_STARTED = /Unable to start a transaction/;

/** pg's own errors for a connection that is gone or could not be had in time. */
const PG_MESSAGES =
  /Connection terminated|Connection ended|timeout exceeded when trying to connect|not queryable|Client was closed/;

function unavailable(e: Record<string, unknown>): boolean {
  const code = typeof e.code === 'string' ? e.code : undefined;
  if (code && (SOCKET_CODES.has(code) || SERVER_CODES.test(code) || PRISMA_CODES.has(code))) return true;
  if (code === 'P2028') return typeof e.message === 'string' && TRANSACTION_NOT_STARTED.test(e.message);
  if (typeof e.kind === 'string' && ADAPTER_KINDS.has(e.kind)) return true;
  if (e.kind === 'postgres' && typeof e.code === 'string' && SERVER_CODES.test(e.code)) return true;
  if (typeof e.originalCode === 'string' && SERVER_CODES.test(e.originalCode)) return true;
  return typeof e.message === 'string' && PG_MESSAGES.test(e.message);
}

/** Looks at the error, its `cause` and Prisma's `meta.driverAdapterError`, a few levels deep. */
function someCause(err: unknown, depth: number, test: (e: Record<string, unknown>) => boolean): boolean {
  if (depth > 4 || err === null || typeof err !== 'object') return false;
  const e = err as Record<string, unknown>;
  if (test(e)) return true;
  const meta = e.meta as Record<string, unknown> | undefined;
  return [e.cause, meta?.driverAdapterError, meta?.cause].some((next) => someCause(next, depth + 1, test));
}
