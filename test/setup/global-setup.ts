import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { conformanceFiles } from '../utils/openapi-conformance';
import { createDatabase, migrateDeploy } from '../utils/isolated-database';

/**
 * One throw-away database and Redis key prefix per test run. Migrations are applied with the real
 * `prisma migrate deploy` (through the offline schema-engine shim), so every run proves them.
 * TEST_RUN_DIR is the run's temp directory: it holds the OpenAPI document of dist/ that every test
 * app's answers are checked against (test/utils/openapi-conformance.ts) and the findings, which the
 * global teardown reports.
 */
export default async function globalSetup(): Promise<void> {
  const adminUrl = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  const runId = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const database = `cp_test_${runId}`;
  process.env.DATABASE_URL = await createDatabase(adminUrl, database);
  process.env.REDIS_KEY_PREFIX = `cp_test_${runId}`;
  process.env.TEST_DATABASE_NAME = database;
  process.env.TEST_DATABASE_ADMIN_URL = adminUrl;
  const runDir = mkdtempSync(join(tmpdir(), `cp-test-${runId}-`));
  process.env.TEST_RUN_DIR = runDir;

  const root = resolve(__dirname, '..', '..');
  writeRunDocument(root, runDir);
  migrateDeploy(process.env.DATABASE_URL);
}

/**
 * The document comes from dist/, as the service serves it: the @nestjs/swagger compiler plugin that
 * documents the DTOs runs in `nest build` only (ts-jest transpiles file by file, with no type
 * checker for it). `npm test` builds first; a lone `npx jest` over a dist/ older than src/ is told so.
 */
function writeRunDocument(root: string, runDir: string): void {
  const dist = join(root, 'dist', 'app.module.js');
  if (!existsSync(dist)) {
    console.warn('\nOpenAPI conformance check off: dist/ is not built (`npm run build`; `npm test` does it)');
    return;
  }
  if (newestMtime(join(root, 'src')) > statSync(dist).mtimeMs) {
    console.warn('\nOpenAPI conformance: dist/ is older than src/, answers are checked against its document');
  }
  execFileSync(
    process.execPath,
    [join(root, 'scripts', 'openapi-document.js'), conformanceFiles(runDir).document],
    {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    // Specs are not built into dist/; generated code is rebuilt with it.
    if (entry.name === 'generated' || entry.name.endsWith('.spec.ts')) continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}
