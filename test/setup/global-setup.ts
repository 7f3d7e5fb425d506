import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { Client } from 'pg';

/**
 * One throw-away database and Redis key prefix per test run. Migrations are applied with the real
 * `prisma migrate deploy` (through the offline schema-engine shim), so every run proves them.
 */
export default async function globalSetup(): Promise<void> {
  const adminUrl = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  const runId = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const database = `cp_test_${runId}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${database}"`);
  await admin.end();

  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  process.env.DATABASE_URL = url.toString();
  process.env.REDIS_KEY_PREFIX = `cp_test_${runId}`;
  process.env.TEST_DATABASE_NAME = database;
  process.env.TEST_DATABASE_ADMIN_URL = adminUrl;

  const root = resolve(__dirname, '..', '..');
  execFileSync(process.execPath, [resolve(root, 'node_modules/prisma/build/index.js'), 'migrate', 'deploy'], {
    cwd: root,
    env: process.env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
