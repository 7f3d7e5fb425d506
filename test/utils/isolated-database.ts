import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { Client } from 'pg';

export interface IsolatedDatabase {
  /** DATABASE_URL of the new, migrated database */
  url: string;
  /** a Redis key prefix of its own, under the run's (so the global teardown still deletes its keys) */
  redisKeyPrefix: string;
  drop: () => Promise<void>;
}

/**
 * A migrated database and a Redis prefix for one test file alone, for tests that read global state
 * (counts over every community, the oldest unrelayed event, the queue's depth) or need the only
 * worker: with the run's shared database, other files' workers relay and deliver each other's
 * events. Costs one `prisma migrate deploy`; use it only where the shared database cannot do.
 */
export async function createIsolatedDatabase(name: string): Promise<IsolatedDatabase> {
  const empty = await createEmptyDatabase(name);
  migrateDeploy(empty.url);
  return { ...empty, redisKeyPrefix: `${process.env.REDIS_KEY_PREFIX}:${name}` };
}

/** A database of the run's with no schema at all (a test applies the migrations it wants), and its drop. */
export async function createEmptyDatabase(name: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_ADMIN_URL!;
  const database = `${process.env.TEST_DATABASE_NAME}_${name}`;
  return {
    url: await createDatabase(adminUrl, database),
    drop: async () => {
      const client = new Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      await client.end();
    },
  };
}

/** Creates an empty database `database` on the server of `adminUrl`; returns its URL. */
export async function createDatabase(adminUrl: string, database: string): Promise<string> {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${database}"`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Applies the committed migrations to the database at `url` with the real `prisma migrate deploy`. */
export function migrateDeploy(url: string): void {
  const root = resolve(__dirname, '..', '..');
  execFileSync(process.execPath, [resolve(root, 'node_modules/prisma/build/index.js'), 'migrate', 'deploy'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/**
 * An empty database of the run's whose `_prisma_migrations` records `applied` as finished (no such
 * table when null): what the readiness check reads (MigrationStatus), with the columns it reads as
 * `prisma migrate deploy` creates them.
 */
export async function databaseWithMigrationRecords(
  name: string,
  applied: string[] | null,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const db = await createEmptyDatabase(`${name}_${randomBytes(3).toString('hex')}`);
  if (applied) {
    const client = new Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query(
        `CREATE TABLE _prisma_migrations (id varchar(36) PRIMARY KEY, migration_name varchar(255) NOT NULL,
         finished_at timestamptz, rolled_back_at timestamptz)`,
      );
      for (const [i, migration] of applied.entries()) {
        await client.query(
          `INSERT INTO _prisma_migrations (id, migration_name, finished_at) VALUES ($1, $2, now())`,
          [String(i), migration],
        );
      }
    } finally {
      await client.end();
    }
  }
  return db;
}
