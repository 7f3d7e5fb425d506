// Benchmark: GET /api/sdk/tweets?page=1&limit=20 with X-Api-Key, for a community of 100,000 tweets
// in a table of 300,000 (two other communities hold 100,000 each), side by side with the floor's
// "auth + page, cached count" variant (../shared/bench-floor/floor-read.mjs) in the same invocation:
// the floor measures both identically (autocannon and wrk, 16 connections, 3 s warm-up + 15 s) and
// this script prints service, floor, ratio, p50, p99 and peak RSS as one JSON line.
// Targets: ratio >= 0.6, p99 < 20 ms, API peak RSS < 200 MiB.
//
//   npm run build && node bench/tweets-list.mjs            # seeds cp_bench once, starts the API from dist/
//   node bench/tweets-list.mjs --prepare                   # only create, migrate and seed the database
//
// Env: DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/cp_bench: created, migrated and seeded
// when it has no bench community yet; an existing seed is reused), BENCH_PORT (3500), BENCH_ROUNDS (1).
// Seeding is set-based (generate_series); the statement-level triggers keep the counters exact.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';

import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { fetch } from 'undici';
import { insertApiKey } from './lib/api-key.mjs';
import { ratio, runFloor } from './lib/floor.mjs';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/cp_bench';
const PORT = Number(process.env.BENCH_PORT ?? 3500);
const BENCH_URL = `http://127.0.0.1:${PORT}`;
const ROUNDS = process.env.BENCH_ROUNDS ?? '1';
const TWEETS_PER_COMMUNITY = 100_000;
const SLUGS = ['bench-tweets', 'bench-other-1', 'bench-other-2'];
const TARGET_P99_MS = 20;
const TARGET_RATIO = 0.6;
const TARGET_RSS_MIB = 200;
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

async function ensureDatabase() {
  const name = new URL(DATABASE_URL).pathname.slice(1);
  const adminUrl = new URL(DATABASE_URL);
  adminUrl.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  execFileSync(process.execPath, [resolve(ROOT, 'node_modules/prisma/build/index.js'), 'migrate', 'deploy'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** Three communities of 100,000 tweets each and their owner, unless a previous run seeded them. */
async function seed(db) {
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

/** The API from dist/, as `npm run start:api` runs it in production, on the bench database. */
async function startApi() {
  const child = spawn(process.execPath, [resolve(ROOT, 'dist/main.js')], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL,
      PORT: String(PORT),
      HOST: '127.0.0.1',
      METRICS_PORT: '0',
      LOG_LEVEL: 'warn',
      JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
      WEBHOOK_SECRET_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${BENCH_URL}/api/health/live`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || child.exitCode !== null) throw new Error('the API did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  return child;
}

/** Peak resident set size of a process so far, in MiB (VmHWM), as the floor reads it. */
function peakRssMiB(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM'));
  return Math.round(Number(line.replace(/\D+/g, '')) / 1024);
}

/** Reads one variant's line of floor-read's output: "<name> #1: autocannon N rps p50 A p99 B ms | wrk M rps p50 C p99 D ms | RSS R MiB (peak P)". */
function figures(lines, name) {
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

async function main() {
  await ensureDatabase();
  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  const { communityId, ownerId } = await seed(db);
  const apiKey = await insertApiKey(db, communityId, ownerId);
  await db.end();
  if (process.argv.includes('--prepare')) return console.log(`prepared ${DATABASE_URL}`);

  const api = await startApi();
  try {
    const url = `${BENCH_URL}/api/sdk/tweets?page=1&limit=20`;
    const probe = await fetch(url, { headers: { 'x-api-key': apiKey } });
    const body = await probe.json();
    if (probe.status !== 200 || body.data.total !== TWEETS_PER_COMMUNITY || body.data.items.length !== 20) {
      throw new Error(`unexpected answer ${probe.status}: ${JSON.stringify(body).slice(0, 300)}`);
    }
    const out = await runFloor(
      'floor-read.mjs',
      {
        VARIANTS: 'cached',
        ROUNDS,
        COMPARE_URL: url,
        COMPARE_KEY: apiKey,
        COMPARE_PID: String(api.pid),
      },
      { allLines: true },
    );
    const floor = figures(out.lines, 'GET /tweets: auth + page, cached count');
    const service = figures(out.lines, 'compare:');
    service.peakRssMiB = Math.max(service.peakRssMiB, peakRssMiB(api.pid));
    const r = ratio(service.wrk.rps, floor.wrk.rps);
    console.log(
      JSON.stringify({
        benchmark: 'tweets-list',
        date: new Date().toISOString().slice(0, 10),
        route: 'GET /api/sdk/tweets?page=1&limit=20 (X-Api-Key), 16 connections',
        service,
        floor,
        ratio: r,
        targets: `ratio >= ${TARGET_RATIO}, p99 < ${TARGET_P99_MS} ms, peak RSS < ${TARGET_RSS_MIB} MiB`,
        pass: r >= TARGET_RATIO && service.wrk.p99Ms < TARGET_P99_MS && service.peakRssMiB < TARGET_RSS_MIB,
      }),
    );
  } finally {
    api.kill('SIGTERM');
  }
}

await main();
