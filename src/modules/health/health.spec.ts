import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceUnavailableException } from '@nestjs/common';
import { Client } from 'pg';
import { databaseWithMigrationRecords } from '../../../test/utils/isolated-database';
import { freePort } from '../../../test/utils/metrics';
import { useServiceModule } from '../../../test/utils/service-module';
import { RedisModule } from '../../redis/redis.module';
import { HealthController } from './health.controller';
import { HealthModule } from './health.module';
import { MigrationStatus, shippedMigrations } from './migration-status';

/** The body terminus answers 503 with: which indicators are down, and why. */
async function unavailable(run: () => Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await run();
  } catch (err) {
    if (err instanceof ServiceUnavailableException) return err.getResponse() as Record<string, unknown>;
    throw err;
  }
  throw new Error('expected 503, the check passed');
}

/**
 * The health rules (docs/api.md#http-contract) held by HealthController and MigrationStatus, on real
 * PostgreSQL and Redis: what live, ready and the plain check ask, which migrations count as applied, and
 * that an answer names a failing dependency and nothing of where it lives.
 */
describe('health', () => {
  describe('shippedMigrations', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'cp-migrations-'));
      for (const name of ['20250102_second', '20250101_first', '20250103_no_sql']) mkdirSync(join(dir, name));
      writeFileSync(join(dir, '20250101_first', 'migration.sql'), 'SELECT 1;');
      writeFileSync(join(dir, '20250102_second', 'migration.sql'), 'SELECT 1;');
      writeFileSync(join(dir, 'migration_lock.toml'), 'provider = "postgresql"');
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('lists each directory holding a migration.sql, oldest first, and nothing else', () => {
      expect(shippedMigrations(dir)).toEqual(['20250101_first', '20250102_second']);
    });

    it("finds this build's migrations beside src/", () => {
      expect(shippedMigrations().length).toBeGreaterThan(1);
    });
  });

  describe('on the run database, migrated', () => {
    const module = useServiceModule([HealthModule, RedisModule]);

    it('has no migration pending', async () => {
      expect(await module.get(MigrationStatus).pending()).toEqual([]);
    });

    it('live checks nothing; the plain check asks PostgreSQL and Redis; ready asks the migrations too', async () => {
      const health = module.get(HealthController);
      expect(await health.live()).toMatchObject({ status: 'ok', details: {} });
      expect(Object.keys((await health.check()).details)).toEqual(['database', 'redis']);
      expect((await health.ready()).details).toEqual({
        database: { status: 'up' },
        redis: { status: 'up' },
        migrations: { status: 'up' },
      });
    });
  });

  describe('on a database whose records miss migrations', () => {
    const shipped = shippedMigrations();
    let db: { url: string; drop: () => Promise<void> };
    beforeAll(async () => {
      // every migration recorded but the second and the last; the last rolled back, and unfinished
      db = await databaseWithMigrationRecords('health_unit', [shipped[0], ...shipped.slice(2, -1)]);
      const client = new Client({ connectionString: db.url });
      await client.connect();
      await client.query(
        `INSERT INTO _prisma_migrations (id, migration_name, finished_at, rolled_back_at)
         VALUES ('rolled', $1, now(), now()), ('unfinished', $1, NULL, NULL)`,
        [shipped.at(-1)],
      );
      await client.end();
    });
    afterAll(() => db?.drop());
    const module = useServiceModule([HealthModule, RedisModule], [], () => ({ DATABASE_URL: db.url }));

    it('names the missing ones, oldest first, counting a rolled-back or unfinished one as missing', async () => {
      expect(await module.get(MigrationStatus).pending()).toEqual([shipped[1], shipped.at(-1)]);
    });

    it('ready answers 503 with their count, not their names; the plain check stays up', async () => {
      const body = await unavailable(() => module.get(HealthController).ready());
      expect(body.error).toEqual({ migrations: { status: 'down', message: '2 migrations not applied' } });
      expect(JSON.stringify(body)).not.toContain(shipped[1]);
      expect(await module.get(HealthController).check()).toMatchObject({ status: 'ok' });
    });
  });

  describe('with PostgreSQL unreachable', () => {
    let port: number;
    beforeAll(async () => {
      port = await freePort();
    });
    const module = useServiceModule([HealthModule, RedisModule], [], () => ({
      DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}/nowhere_db`,
    }));

    it('names the database down as unreachable, and the migrations as unknown, without the address', async () => {
      const health = module.get(HealthController);
      const body = await unavailable(() => health.ready());
      expect(body.error).toEqual({
        database: { status: 'down', message: 'unreachable' },
        migrations: { status: 'down', message: 'unknown' },
      });
      expect(body.info).toEqual({ redis: { status: 'up' } });
      const text = JSON.stringify(body);
      for (const secret of [String(port), '127.0.0.1', 'nowhere_db', 'ECONNREFUSED'])
        expect(text).not.toContain(secret);
      expect(await health.live()).toMatchObject({ status: 'ok' });
    });
  });
});
