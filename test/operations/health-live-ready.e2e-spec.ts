import { Client } from 'pg';
import { shippedMigrations } from '../../src/modules/health/migration-status';
import { createTestApp, TestApp, useTestApp } from '../utils/app';
import { call } from '../utils/http';
import { databaseWithMigrationRecords } from '../utils/isolated-database';
import { freePort } from '../utils/metrics';

// GET /api/health/live and /api/health/ready (docs/api.md#http-contract): live asks nothing of the
// dependencies, ready asks PostgreSQL, Redis and whether every migration of prisma/migrations is applied.

/** Runs `work` on a connection of its own to the database at `url`. */
async function onDatabase<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

describe('health: live and ready', () => {
  describe('everything up (the run database, migrated)', () => {
    const t = useTestApp();

    it('live answers 200', async () => {
      const res = await call(t.app, 'GET', '/api/health/live');
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ status: 'ok' });
    });

    it('ready answers 200 with database, redis and migrations up', async () => {
      const res = await call(t.app, 'GET', '/api/health/ready');
      expect(res.status).toBe(200);
      expect(res.body.data.details).toEqual({
        database: { status: 'up' },
        redis: { status: 'up' },
        migrations: { status: 'up' },
      });
    });

    it('/api/health keeps its meaning: database and Redis, nothing more', async () => {
      const res = await call(t.app, 'GET', '/api/health');
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.data.details).sort()).toEqual(['database', 'redis']);
    });

    it('both routes are in the OpenAPI document, without credentials', async () => {
      const res = await call(t.app, 'GET', '/api/docs-json');
      const paths = res.body.paths ?? res.body.data?.paths;
      for (const path of ['/api/health/live', '/api/health/ready']) {
        expect(paths[path]?.get).toBeDefined();
        expect(paths[path].get.security ?? []).toEqual([]);
      }
      expect(paths['/api/health/ready'].get.responses['503']).toBeDefined();
    });
  });

  describe('a migration missing', () => {
    let t: TestApp;
    let db: { url: string; drop: () => Promise<void> };
    beforeAll(async () => {
      const shipped = shippedMigrations();
      expect(shipped.length).toBeGreaterThan(1);
      db = await databaseWithMigrationRecords('ready', shipped.slice(0, -1));
      t = await createTestApp({ DATABASE_URL: db.url });
    });
    afterAll(async () => {
      await t.close();
      await db.drop();
    });

    it('ready answers 503 naming the count, not the migration; live still 200', async () => {
      const res = await call(t.app, 'GET', '/api/health/ready');
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ success: false, code: 'SERVICE_UNAVAILABLE' });
      expect(res.body.details.error).toEqual({
        migrations: { status: 'down', message: '1 migration not applied' },
      });
      expect(res.body.details.info).toMatchObject({ database: { status: 'up' }, redis: { status: 'up' } });
      expect((await call(t.app, 'GET', '/api/health/live')).status).toBe(200);
    });

    it('a rolled-back or unfinished migration does not count as applied', async () => {
      const last = shippedMigrations().at(-1)!;
      await onDatabase(db.url, (client) =>
        client.query(
          `INSERT INTO _prisma_migrations (id, migration_name, finished_at, rolled_back_at)
           VALUES ('rolled', $1, now(), now()), ('unfinished', $1, NULL, NULL)`,
          [last],
        ),
      );
      const res = await call(t.app, 'GET', '/api/health/ready');
      expect(res.status).toBe(503);
      expect(res.body.details.error.migrations.message).toBe('1 migration not applied');
    });
  });

  describe('a database never migrated (no _prisma_migrations)', () => {
    let t: TestApp;
    let db: { url: string; drop: () => Promise<void> };
    beforeAll(async () => {
      db = await databaseWithMigrationRecords('ready', null);
      t = await createTestApp({ DATABASE_URL: db.url });
    });
    afterAll(async () => {
      await t.close();
      await db.drop();
    });

    it('ready answers 503 with every shipped migration missing', async () => {
      const res = await call(t.app, 'GET', '/api/health/ready');
      expect(res.status).toBe(503);
      expect(res.body.details.error.migrations).toEqual({
        status: 'down',
        message: `${shippedMigrations().length} migrations not applied`,
      });
    });
  });

  describe('dependencies unreachable', () => {
    let port: number;
    beforeAll(async () => {
      port = await freePort();
    });

    it('database down: live 200, ready 503 with database down', async () => {
      const t = await createTestApp({ DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}/cp_nowhere` });
      try {
        expect((await call(t.app, 'GET', '/api/health/live')).status).toBe(200);
        const res = await call(t.app, 'GET', '/api/health/ready');
        expect(res.status).toBe(503);
        expect(res.body.details.error.database).toEqual({ status: 'down', message: 'unreachable' });
        expect(JSON.stringify(res.body)).not.toContain(String(port));
      } finally {
        await t.close();
      }
    });

    it('Redis down: live 200, ready 503 with redis down', async () => {
      const t = await createTestApp({ REDIS_URL: `redis://127.0.0.1:${port}` });
      try {
        expect((await call(t.app, 'GET', '/api/health/live')).status).toBe(200);
        const res = await call(t.app, 'GET', '/api/health/ready');
        expect(res.status).toBe(503);
        expect(res.body.details.error).toEqual({ redis: { status: 'down', message: 'unreachable' } });
      } finally {
        await t.close();
      }
    });
  });
});
