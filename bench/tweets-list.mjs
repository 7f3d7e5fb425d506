// Benchmark: GET /api/sdk/tweets?limit=20 with X-Api-Key, for a community of 100,000 tweets in a
// table of 300,000 (two other communities hold 100,000 each). Target: p99 < 20 ms at 16 connections.
//
//   node bench/tweets-list.mjs --prepare      # create, migrate and seed the bench database, then exit
//   DATABASE_URL=<bench db> PORT=3100 node <build>/main.js &   # the API under test
//   BENCH_URL=http://127.0.0.1:3100 node bench/tweets-list.mjs
//
// Env: DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/cp_bench: created, migrated and seeded
// when it has no bench community yet; an existing seed is reused), BENCH_URL (default
// http://127.0.0.1:3000), BENCH_CONNECTIONS (16), BENCH_DURATION (15 s), BENCH_WARMUP (3 s).
// Seeding is set-based (generate_series); the statement-level triggers keep the counters exact.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { fetch } from 'undici';
import { insertApiKey } from './lib/api-key.mjs';

const require = createRequire(import.meta.url);
const autocannon = require('autocannon');

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/cp_bench';
const BENCH_URL = (process.env.BENCH_URL ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const DURATION = Number(process.env.BENCH_DURATION ?? 15);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const TWEETS_PER_COMMUNITY = 100_000;
const SLUGS = ['bench-tweets', 'bench-other-1', 'bench-other-2'];
const TARGET_P99_MS = 20;
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

function load(apiKey, seconds) {
  return autocannon({
    url: `${BENCH_URL}/api/sdk/tweets?limit=20`,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { 'x-api-key': apiKey, accept: 'application/json' },
  });
}

async function main() {
  await ensureDatabase();
  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  const { communityId, ownerId } = await seed(db);
  const apiKey = await insertApiKey(db, communityId, ownerId);
  await db.end();
  if (process.argv.includes('--prepare')) return console.log(`prepared ${DATABASE_URL}`);

  const probe = await fetch(`${BENCH_URL}/api/sdk/tweets?limit=20`, { headers: { 'x-api-key': apiKey } });
  const body = await probe.json();
  if (probe.status !== 200 || body.data.total !== TWEETS_PER_COMMUNITY || body.data.items.length !== 20) {
    throw new Error(`unexpected answer ${probe.status}: ${JSON.stringify(body).slice(0, 300)}`);
  }
  await load(apiKey, WARMUP);
  const result = await load(apiKey, DURATION);
  const ok = result.non2xx === 0 && result.errors === 0 && result.timeouts === 0;
  console.log(
    `GET /api/sdk/tweets?limit=20, ${CONNECTIONS} connections, ${DURATION} s after ${WARMUP} s warm-up:\n` +
      `  req/s ${result.requests.average.toFixed(0)}  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms` +
      `  (requests ${result.requests.total}, non-2xx ${result.non2xx}, errors ${result.errors})\n` +
      `  target p99 < ${TARGET_P99_MS} ms: ${ok && result.latency.p99 < TARGET_P99_MS ? 'met' : 'MISSED'}`,
  );
}

await main();
