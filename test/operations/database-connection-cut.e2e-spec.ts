import { loadConfig } from '../../src/config/app-config';
import { PrismaService } from '../../src/prisma/prisma.service';
import { waitFor } from '../utils/worker';

/**
 * The server closes a pooled connection (a restart, a failover, pg_terminate_backend): the process
 * keeps running and the next query gets a new connection.
 */
describe('a database connection cut under the pool', () => {
  it('is replaced: no crash, and the next query answers on a new connection', async () => {
    const config = loadConfig({ ...process.env, DATABASE_POOL_SIZE: '1' }).config;
    const prisma = new PrismaService(config);
    const killer = new PrismaService(config);
    try {
      const before = (await prisma.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      // no listener of the test's own: the service's must take the idle connection's error
      await killer.pool.query('SELECT pg_terminate_backend($1)', [before]);
      await waitFor('the pool to drop the closed connection', () => prisma.pool.totalCount === 0);

      const after = (await prisma.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      expect(after).not.toBe(before);
      await expect(prisma.community.count()).resolves.toBeGreaterThanOrEqual(0);
    } finally {
      await prisma.onModuleDestroy();
      await killer.onModuleDestroy();
    }
  });
});
