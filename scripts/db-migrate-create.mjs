#!/usr/bin/env node
// `npm run db:migrate:create -- <name> [--count <table>]… [--empty]`: writes
// prisma/migrations/<UTC timestamp>_<name>/migration.sql, the SQL that takes a database holding every
// migration so far to prisma/schema.prisma (docs/adding-a-module.md#the-commands).
//
// How: a scratch database on the server of DATABASE_DIRECT_URL or DATABASE_URL (.env read like `npm start`
// reads it), every migration applied to it (`prisma migrate deploy`), then `prisma migrate diff
// --from-config-datasource --to-schema … --script` against it; the new migration is applied to the scratch
// database as well and the diff run again, which must be empty. The scratch database is dropped at the end,
// on failure and on Ctrl-C too. Your own database is never touched, and no shadow database is made.
// Why not `prisma migrate dev --create-only`: it applies pending migrations to your database first, asks
// to reset it when it has drifted (a question nobody answers in CI), and makes a shadow database of its own.
// `--count <table>` appends `SELECT count_rows_per_community('<table>');`, the line that keeps a counted
// table's exact total (docs/architecture.md#the-page-as-postgresql-writes-it). `--empty` writes an empty
// migration for hand-written SQL when the schema did not change.
// Works with Prisma's native schema engine and with its WebAssembly stand-in (prisma.config.ts chooses).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const pg = require('pg');

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MIGRATIONS = path.join(root, 'prisma', 'migrations');
const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/community_platform';
const PRISMA = path.join(path.dirname(require.resolve('prisma/package.json')), 'build', 'index.js');

const say = (line) => process.stdout.write(`[db:migrate:create] ${line}\n`);
class Failure extends Error {}

function parseArgs(argv) {
  const usage = 'usage: npm run db:migrate:create -- <name> [--count <table>]… [--empty]';
  const args = { name: undefined, counted: [], empty: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--count') args.counted.push(argv[++i]);
    else if (a === '--empty') args.empty = true;
    else if (a.startsWith('-') || args.name) throw new Failure(`unexpected argument '${a}'\n${usage}`);
    else args.name = a;
  }
  if (!args.name) throw new Failure(usage);
  for (const word of [args.name, ...args.counted]) {
    if (!/^[a-z][a-z0-9_]{0,62}$/.test(word ?? ''))
      throw new Failure(`'${word}' is not a lower-case SQL name (letters, digits, _)\n${usage}`);
  }
  return args;
}

/** YYYYMMDDHHMMSS in UTC, after the newest migration's, so the new one is applied last everywhere. */
function nextTimestamp(existing) {
  const stamp = (date) => date.toISOString().replace(/\D/g, '').slice(0, 14);
  const newest = existing
    .map((dir) => dir.slice(0, 14))
    .sort()
    .pop();
  let date = new Date();
  if (newest && stamp(date) <= newest) {
    const [y, mo, d, h, mi, s] = newest
      .match(/^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)$/)
      .slice(1)
      .map(Number);
    date = new Date(Date.UTC(y, mo - 1, d, h, mi, s + 1));
  }
  return stamp(date);
}

function serverUrl() {
  const env = path.join(root, '.env');
  if (existsSync(env)) process.loadEnvFile(env); // variables already set win, as in the service
  return process.env.DATABASE_DIRECT_URL || process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
}

function withDatabase(url, database) {
  const u = new URL(url);
  u.pathname = `/${database}`;
  // PgBouncer's flag and Prisma's own parameters mean nothing to a direct connection
  for (const p of ['pgbouncer', 'connection_limit', 'pool_timeout', 'statement_cache_size'])
    u.searchParams.delete(p);
  return u.toString();
}

async function admin(url, sql) {
  const client = new pg.Client({ connectionString: withDatabase(url, 'postgres') });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Runs the Prisma CLI against the scratch database; its output is shown only when it fails. */
function prisma(args, databaseUrl, okStatuses = [0]) {
  const result = spawnSync(process.execPath, [PRISMA, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: databaseUrl, DATABASE_DIRECT_URL: databaseUrl },
  });
  if (!okStatuses.includes(result.status)) {
    throw new Failure(
      `prisma ${args.join(' ')} failed (exit code ${result.status ?? result.signal}):\n${result.stdout}${result.stderr}`,
    );
  }
  return result.status;
}

/** The SQL from the scratch database to the schema, or '' when they agree. */
function diff(databaseUrl, file) {
  const args = ['migrate', 'diff', '--from-config-datasource', '--to-schema', 'prisma/schema.prisma'];
  // --exit-code: 0 empty, 2 not empty, 1 an error
  const status = prisma([...args, '--script', '--exit-code', '--output', file], databaseUrl, [0, 2]);
  return status === 2 ? readFileSync(file, 'utf8') : '';
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const server = serverUrl();
  const scratch = `migrate_scratch_${args.name}_${randomBytes(4).toString('hex')}`.slice(0, 63);
  const scratchUrl = withDatabase(server, scratch);
  const existing = readdirSync(MIGRATIONS).filter((dir) => /^\d{14}_/.test(dir));
  const folder = path.join(MIGRATIONS, `${nextTimestamp(existing)}_${args.name}`);
  let written = false;
  let dropped;
  const dropScratch = () => (dropped ??= admin(server, `DROP DATABASE IF EXISTS "${scratch}" WITH (FORCE)`));
  const onSignal = (signal) => {
    if (written) rmSync(folder, { recursive: true, force: true });
    dropScratch().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const work = mkdtempSync(path.join(tmpdir(), 'db-migrate-create-'));
  await admin(server, `CREATE DATABASE "${scratch}"`);
  try {
    say(`applying the ${existing.length} migrations to a scratch database (${scratch})`);
    prisma(['migrate', 'deploy'], scratchUrl);
    const sql = diff(scratchUrl, path.join(work, 'migration.sql'));
    if (!sql.trim() && !args.empty && !args.counted.length) {
      throw new Failure(
        'prisma/schema.prisma adds nothing to the migrations: no migration written (--empty writes one)',
      );
    }
    const counters = args.counted.map((table) => `SELECT count_rows_per_community('${table}');\n`).join('');
    mkdirSync(folder);
    written = true;
    writeFileSync(
      path.join(folder, 'migration.sql'),
      `${sql.trim() ? sql.trimEnd() + '\n' : ''}${counters ? `\n${counters}` : ''}`,
    );
    // the new migration, applied the same way, must leave nothing between the database and the schema
    prisma(['migrate', 'deploy'], scratchUrl);
    const left = diff(scratchUrl, path.join(work, 'left.sql'));
    if (left.trim()) throw new Failure(`after the new migration the schema still differs:\n${left}`);
    say(`wrote ${path.relative(root, path.join(folder, 'migration.sql'))}`);
  } catch (err) {
    if (written) rmSync(folder, { recursive: true, force: true });
    throw err;
  } finally {
    rmSync(work, { recursive: true, force: true });
    await dropScratch();
  }
}

main().catch((err) => {
  process.stderr.write(`[db:migrate:create] ${err instanceof Failure ? err.message : err.stack}\n`);
  process.exit(1);
});
