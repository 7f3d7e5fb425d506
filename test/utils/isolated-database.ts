import { execFileSync } from 'node:child_process';
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
  const root = resolve(__dirname, '..', '..');
  execFileSync(process.execPath, [resolve(root, 'node_modules/prisma/build/index.js'), 'migrate', 'deploy'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: empty.url },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return { ...empty, redisKeyPrefix: `${process.env.REDIS_KEY_PREFIX}:${name}` };
}

/** A database of the run's with no schema at all (a test applies the migrations it wants), and its drop. */
export async function createEmptyDatabase(name: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_ADMIN_URL!;
  const database = `${process.env.TEST_DATABASE_NAME}_${name}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${database}"`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      await client.end();
    },
  };
}
