import { existsSync, readFileSync, rmSync } from 'node:fs';
import { Client } from 'pg';
import { deleteRunKeys } from '../../scripts/redis-run-keys';
import { conformanceFiles, type RecordedViolation } from '../utils/openapi-conformance';

/**
 * Drops the run's database and deletes its Redis keys, then reports the OpenAPI conformance check
 * (test/utils/openapi-conformance.ts): how many answers were validated, and a failed run listing
 * every answer the document does not describe.
 */
export default async function globalTeardown(): Promise<void> {
  const database = process.env.TEST_DATABASE_NAME;
  if (database && process.env.KEEP_TEST_DATABASE !== 'true') {
    const admin = new Client({ connectionString: process.env.TEST_DATABASE_ADMIN_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await admin.end();
  }
  const prefix = process.env.REDIS_KEY_PREFIX;
  if (prefix?.startsWith('cp_test_'))
    await deleteRunKeys(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix);
  const runDir = process.env.TEST_RUN_DIR;
  if (runDir) reportConformance(runDir);
}

function reportConformance(runDir: string): void {
  const files = conformanceFiles(runDir);
  const lines = (file: string) =>
    existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  const validated = lines(files.validated);
  const violations = lines(files.violations).map((line) => JSON.parse(line) as RecordedViolation);
  rmSync(runDir, { recursive: true, force: true });
  if (validated.length === 0 && violations.length === 0) return;
  const operations = new Set(validated.map((line) => line.slice(0, line.lastIndexOf(' '))));
  console.log(
    `\nOpenAPI conformance: ${validated.length} responses of ${operations.size} operations matched the document`,
  );
  if (violations.length === 0) return;
  // One line per distinct finding (the same one repeats across tests), with a test that met it.
  const distinct = new Map<string, RecordedViolation & { count: number }>();
  for (const v of violations) {
    const key = `${v.operation} ${v.status} ${v.problem} ${(v.errors ?? []).join('; ')}`;
    const seen = distinct.get(key);
    if (seen) seen.count += 1;
    else distinct.set(key, { ...v, count: 1 });
  }
  const report = [...distinct.values()].map(
    (v) =>
      `  ${v.operation} -> ${v.status}: ${v.problem}${v.errors?.length ? ` (${v.errors.join('; ')})` : ''}` +
      ` x${v.count}, e.g. in ${v.testFile ?? 'unknown test'}`,
  );
  throw new Error(
    `${violations.length} responses do not match the OpenAPI document:\n${report.join('\n')}\n` +
      'Document the status or body (src/common/http/api-docs.ts, src/bootstrap/openapi-document.ts) or fix the route.',
  );
}
