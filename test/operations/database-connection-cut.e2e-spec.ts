import { Logger } from '@nestjs/common';
import { loadConfig } from '../../src/config/app-config';
import { isDatabaseUnavailable } from '../../src/prisma/database-unavailable';
import { PrismaService } from '../../src/prisma/prisma.service';
import { waitFor } from '../utils/worker';

/**
 * The server closes a pooled connection (a restart, a failover, pg_terminate_backend): the process
 * keeps running and the next query gets a new connection.
 */
describe('a database connection cut under the pool', () => {
  it('is replaced: no crash, and the next query answers on a new connection', async () => {
    const config = loadConfig({ ...process.env, DATABASE_POOL_SIZE: '1' }).config;
    // outside an app, Nest's Logger would print the service's warning to the test run's console
    const warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const prisma = new PrismaService(config);
    const killer = new PrismaService(config);
    try {
      const before = (await prisma.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      // no listener of the test's own: the service's must take the idle connection's error
      await killer.pool.query('SELECT pg_terminate_backend($1)', [before]);
      await waitFor('the pool to drop the closed connection', () => prisma.pool.totalCount === 0);

      const after = (await prisma.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      expect(after).not.toBe(before);
      expect(warnings).toHaveBeenCalledWith(
        expect.objectContaining({ msg: 'idle database connection lost' }),
      );
      await expect(prisma.community.count()).resolves.toBeGreaterThanOrEqual(0);
    } finally {
      await prisma.onModuleDestroy();
      await killer.onModuleDestroy();
      warnings.mockRestore();
    }
  });

  it('held between statements (a keyed request, a transaction) is cut: no crash, its next statement is a 503', async () => {
    const config = loadConfig({ ...process.env, DATABASE_POOL_SIZE: '2' }).config;
    const warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const prisma = new PrismaService(config);
    const killer = new PrismaService(config);
    try {
      const held = await prisma.pool.connect();
      await held.query('BEGIN');
      const pid = (await held.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      const ended = new Promise((resolve) => held.once('end', resolve));
      // the server's FATAL arrives while no statement runs on the held connection: pg emits it as an
      // 'error' event, which ends the process unless someone listens (pg-pool does not, once it is lent)
      await killer.pool.query('SELECT pg_terminate_backend($1)', [pid]);
      await ended;
      expect(warnings).toHaveBeenCalledWith(
        expect.objectContaining({ msg: 'database connection lost while in use' }),
      );
      const next = await held.query('SELECT 1').catch((err: unknown) => err);
      expect(isDatabaseUnavailable(next)).toBe(true);
      held.release();
      // the dead connection left the pool; the next statement has a fresh one
      await expect(prisma.pool.query('SELECT 1 AS one')).resolves.toMatchObject({ rows: [{ one: 1 }] });
    } finally {
      await prisma.onModuleDestroy();
      await killer.onModuleDestroy();
      warnings.mockRestore();
    }
  });
});
