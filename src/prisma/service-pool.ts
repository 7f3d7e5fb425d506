import { Logger } from '@nestjs/common';
import { Pool } from 'pg';
import type { AppConfig } from '../config/app-config';

const logger = new Logger('DatabasePool');

/**
 * A pg pool of the service, with what every one needs to outlive a database that goes away:
 *
 * - a connection not had within DATABASE_CONNECT_TIMEOUT (none free, or no server answering: a
 *   failover) fails the statement, which the API answers 503, instead of waiting for good;
 * - TCP keepalive, so a connection to a server that vanished without a word is found dead;
 * - a listener for each connection's errors while it is checked out. pg-pool listens only while a
 *   connection is idle; one held between statements (a keyed request's transaction, a Prisma
 *   interactive transaction) that the server ends (57P01 when a primary is demoted or shut down)
 *   would otherwise emit an error nobody hears, which ends the process. Its next statement then
 *   fails as "not queryable" (a 503), and pg-pool drops it when it is released.
 * - a listener for the pool's own errors (an idle connection the server closed), dropped and
 *   replaced on the next query.
 */
export function servicePool(config: AppConfig, connectionString: string, max: number, what: string): Pool {
  const pool = new Pool({
    connectionString,
    max,
    connectionTimeoutMillis: config.databaseConnectTimeoutMs,
    keepAlive: true,
  });
  pool.on('error', (err) => logger.warn({ msg: `idle ${what} connection lost`, error: err.message }));
  pool.on('connect', (client) =>
    client.on('error', (err) =>
      logger.warn({ msg: `${what} connection lost while in use`, error: err.message }),
    ),
  );
  return pool;
}
