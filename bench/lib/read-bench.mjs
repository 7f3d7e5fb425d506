// What the read and write benchmarks share: the bench database (created, migrated and seeded once per
// invocation, dropped at its end unless BENCH_KEEP_DB=1 keeps it for the next), the API started from
// dist/ as production runs it, and the reading of the floor's output.
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { fetch } from 'undici';
import { ownChild } from './children.mjs';
import { launchNodeFlags, mallocEnvironment } from './launch-settings.mjs';

export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/cp_bench';
export const PORT = Number(process.env.BENCH_PORT ?? 3500);
export const BENCH_URL = `http://127.0.0.1:${PORT}`;
export const ROUNDS = process.env.BENCH_ROUNDS ?? '1';
export const TWEETS_PER_COMMUNITY = 100_000;
export const SLUGS = ['bench-tweets', 'bench-other-1', 'bench-other-2'];
/** The read bar: the floor's `best` variant (key cached in memory, statements planned once, count cached). */
export const FLOOR_READ_VARIANT = 'best';
export const FLOOR_READ_LINE = 'GET /tweets: cached key, generic plans, cached count';
export const TARGET_RATIO = 0.95;
export const TARGET_P99_MS = 10;
/** The delivery log (1,000,000 attempts, one status) is judged by its p99 alone. */
export const TARGET_DELIVERY_LOG_P99_MS = 15;
/** Peak RSS under load, as a multiple of the floor process's peak in the same run. */
export const TARGET_RSS_RATIO = 1.3;
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const autocannon = createRequire(import.meta.url)('autocannon');

/** Drops the bench database at the end of an invocation, unless BENCH_KEEP_DB=1 (to rerun without seeding). */
export async function dropDatabaseUnlessKept() {
  if (process.env.BENCH_KEEP_DB === '1') return;
  const name = new URL(DATABASE_URL).pathname.slice(1);
  const adminUrl = new URL(DATABASE_URL);
  adminUrl.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

export async function ensureDatabase() {
  const name = new URL(DATABASE_URL).pathname.slice(1);
  const adminUrl = new URL(DATABASE_URL);
  adminUrl.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  migrate(DATABASE_URL);
}

/** The migrations deployed to the database of `url` (the bench database, or a formation's). */
export function migrate(url) {
  execFileSync(process.execPath, [resolve(ROOT, 'node_modules/prisma/build/index.js'), 'migrate', 'deploy'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** Three communities of 100,000 tweets each and their owner, unless a previous run seeded them. */
export async function seed(db) {
  const found = await db.query('SELECT id FROM communities WHERE slug = $1', [SLUGS[0]]);
  if (found.rowCount > 0) {
    const owner = await db.query(
      `SELECT user_id FROM memberships WHERE community_id = $1 AND role = 'OWNER'`,
      [found.rows[0].id],
    );
    return { communityId: found.rows[0].id, ownerId: owner.rows[0].user_id };
  }
  const started = Date.now();
  const ownerId = randomUUID();
  await db.query('BEGIN');
  await db.query(
    `INSERT INTO users (id, email, name, updated_at) VALUES ($1, 'owner@bench.test', 'Bench Owner', now())`,
    [ownerId],
  );
  const ids = [];
  for (const slug of SLUGS) {
    const id = randomUUID();
    ids.push(id);
    await db.query(
      `INSERT INTO communities (id, slug, name, plan, updated_at) VALUES ($1, $2, $2, 'PRO', now())`,
      [id, slug],
    );
    await db.query(
      `INSERT INTO memberships (id, community_id, user_id, role, updated_at) VALUES ($1, $2, $3, 'OWNER', now())`,
      [randomUUID(), id, ownerId],
    );
    // one statement per community: the statement-level trigger adds 100,000 to its counter once
    await db.query(
      `INSERT INTO tweets (id, community_id, author_id, content, created_at, updated_at)
       SELECT gen_random_uuid(), $1, $2, 'Bench tweet number ' || g,
              now() - g * interval '1 second', now() - g * interval '1 second'
         FROM generate_series(1, $3::int) AS g`,
      [id, ownerId, TWEETS_PER_COMMUNITY],
    );
  }
  await db.query('COMMIT');
  await db.query('ANALYZE tweets');
  console.log(`seeded ${SLUGS.length} × ${TWEETS_PER_COMMUNITY} tweets in ${Date.now() - started} ms`);
  return { communityId: ids[0], ownerId };
}

/** An `authorization` header for the user, logged in to `communityId` through the API under test's login route. */
export async function bearerFor({ email, password, communityId }, baseUrl = BENCH_URL) {
  const login = await fetch(`${baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password, communityId }),
  });
  if (login.status !== 200) throw new Error(`login: ${login.status} ${(await login.text()).slice(0, 200)}`);
  return { authorization: `Bearer ${(await login.json()).data.accessToken}` };
}

/**
 * The API from dist/, as `npm run start:api` runs it in production, on the bench database; `extraEnv`
 * adds to its environment (tracing's; another DATABASE_URL, or a PORT for a second API beside it).
 */
export async function startApi(extraEnv = {}) {
  const url = `http://127.0.0.1:${extraEnv.PORT ?? PORT}`;
  // a server already on the port (another session's bench) would answer the health check below and
  // be measured in this one's place
  const before = await fetch(`${url}/api/health`).catch(() => undefined);
  if (before) throw new Error(`something already listens on ${url}: set BENCH_PORT to a free port`);
  const dist = resolve(process.env.BENCH_API_DIST ?? resolve(ROOT, 'dist'));
  // BENCH_API_NODE_ARGS: flags for the API's node, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile it
  const nodeArgs = [
    ...launchNodeFlags(dist, 'api'),
    ...(process.env.BENCH_API_NODE_ARGS ?? '').split(' ').filter(Boolean),
  ];
  const child = ownChild(
    spawn(process.execPath, [...nodeArgs, resolve(dist, 'main.js')], {
      env: {
        ...mallocEnvironment(dist),
        ...process.env,
        NODE_ENV: 'production',
        DATABASE_URL,
        PORT: String(PORT),
        HOST: '127.0.0.1',
        METRICS_PORT: '0',
        LOG_LEVEL: 'warn',
        JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
        WEBHOOK_SECRET_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
        ...extraEnv,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      // any answer means it listens (/api/health exists in every version, for bisecting old builds)
      await fetch(`${url}/api/health`);
      break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error('the API did not start');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return child;
}

/**
 * One route of the started API as the floor measures its own (autocannon, 16 connections, 3 s warm-up
 * + `seconds`, 15 as the floor's), after one checked request: req/s, p50, p99 (autocannon's whole milliseconds).
 */
export async function measureRoute(path, headers, seconds = 15) {
  const url = `${BENCH_URL}${path}`;
  const check = await fetch(url, { headers });
  if (check.status !== 200) throw new Error(`${path}: ${check.status} ${(await check.text()).slice(0, 200)}`);
  const r = await autocannon({
    url,
    headers,
    connections: 16,
    duration: seconds,
    warmup: { connections: 16, duration: 3 },
  });
  if (r.non2xx || r.errors || r.timeouts) throw new Error(`${path}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return { rps: Math.round(r.requests.total / seconds), p50Ms: r.latency.p50, p99Ms: r.latency.p99 };
}

/**
 * Attempts `from + 1` .. `from + count` of one endpoint's delivery log, one in ten FAILED (500), the rest
 * SUCCESS, one second apart going back from now: the delivery log's bench data, set-based.
 */
export async function insertAttempts(db, { communityId, endpointId, from = 0, count }) {
  await db.query(
    `INSERT INTO webhook_deliveries
       (id, community_id, endpoint_id, message_id, event_type, attempt, status, response_status, duration_ms,
        created_at, updated_at)
     SELECT gen_random_uuid(), $1, $2, 'msg_bench_' || g, 'tweet.created', 1,
            CASE WHEN g % 10 = 0 THEN 'FAILED' ELSE 'SUCCESS' END::"DeliveryStatus",
            CASE WHEN g % 10 = 0 THEN 500 ELSE 200 END, 12,
            now() - g * interval '1 second', now() - g * interval '1 second'
       FROM generate_series($3::int + 1, $3::int + $4::int) AS g`,
    [communityId, endpointId, from, count],
  );
}

/**
 * Sets a process's peak resident set size (VmHWM) back to its current size (Linux's clear_refs "5"), so
 * that the next peakRssMiB covers only what follows: a bench's own set-up, which the floor does not
 * do, is then left out of the figure compared with the floor's.
 */
export function resetPeakRss(pid) {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** Peak resident set size of a process so far, in MiB (VmHWM), as the floor reads it. */
export function peakRssMiB(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM'));
  return Math.round(Number(line.replace(/\D+/g, '')) / 1024);
}

/** Reads one variant's line of floor-read's output: "<name> #1: autocannon N rps p50 A p99 B ms | wrk M rps p50 C p99 D ms | RSS R MiB (peak P)". */
export function figures(lines, name) {
  const line = lines.find((l) => l.startsWith(name));
  if (!line) throw new Error(`the floor printed no "${name}" line`);
  const n = (re) => Number(line.match(re)[1]);
  return {
    autocannon: {
      rps: n(/autocannon ([\d.]+) rps/),
      p50Ms: n(/autocannon [\d.]+ rps p50 ([\d.]+)/),
      p99Ms: n(/autocannon [\d.]+ rps p50 [\d.]+ p99 ([\d.]+)/),
    },
    wrk: {
      rps: n(/wrk ([\d.]+) rps/),
      p50Ms: n(/wrk [\d.]+ rps p50 ([\d.]+)/),
      p99Ms: n(/wrk [\d.]+ rps p50 [\d.]+ p99 ([\d.]+)/),
    },
    peakRssMiB: n(/\(peak ([\d.]+)\)/),
  };
}
