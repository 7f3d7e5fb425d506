// Benchmark: POST /api/sdk/members/bulk with 1,000 new members, then the same 1,000 again as
// updates (new name and role each), timed end to end over HTTP. Target: < 1 s each.
//
//   node bench/members-bulk.mjs --prepare   # (re)create and migrate the bench database, then exit
//   DATABASE_URL=<bench db> PORT=3200 node <build>/main.js &   # the API under test
//   BENCH_URL=http://127.0.0.1:3200 node bench/members-bulk.mjs
//
// Each round seeds its own ENTERPRISE community, OWNER and API key directly with `pg`, so the
// script can be re-run against the same database. Env: BENCH_URL (default http://127.0.0.1:3000),
// BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/cp_bench_members),
// BENCH_ROUNDS (default 3), BENCH_SIZE (default 1000). The floor has no bulk route: no ratio.
// BENCH_RECORD=1 (or --record) appends the run to bench/results/members-bulk.jsonl (lib/record.mjs).
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { fetch } from 'undici';
import { insertApiKey } from './lib/api-key.mjs';
import { record } from './lib/record.mjs';

const BENCH_URL = (process.env.BENCH_URL ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
const DATABASE_URL =
  process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/cp_bench_members';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SIZE = Number(process.env.BENCH_SIZE ?? 1000);
const TARGET_MS = 1000;
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

async function prepareDatabase() {
  const url = new URL(DATABASE_URL);
  const name = url.pathname.slice(1);
  const adminUrl = new URL(DATABASE_URL);
  adminUrl.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  execFileSync(process.execPath, [resolve(ROOT, 'node_modules/prisma/build/index.js'), 'migrate', 'deploy'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  console.log(`prepared ${name}`);
}

/** An ENTERPRISE community, its OWNER and an API key (cpk_<keyId>_<secret>, stored as keyId + sha256(secret)). */
async function seedCommunity(db) {
  const run = randomBytes(4).toString('hex');
  const communityId = randomUUID();
  const ownerId = randomUUID();
  await db.query(
    `INSERT INTO communities (id, slug, name, plan, updated_at) VALUES ($1, $2, $3, 'ENTERPRISE', now())`,
    [communityId, `bench-${run}`, `Bench ${run}`],
  );
  await db.query(`INSERT INTO users (id, email, name, updated_at) VALUES ($1, $2, 'Bench Owner', now())`, [
    ownerId,
    `owner-${run}@bench.test`,
  ]);
  await db.query(
    `INSERT INTO memberships (id, community_id, user_id, role, updated_at) VALUES ($1, $2, $3, 'OWNER', now())`,
    [randomUUID(), communityId, ownerId],
  );
  return { run, apiKey: await insertApiKey(db, communityId, ownerId) };
}

async function timedBulk(apiKey, members) {
  const started = performance.now();
  const res = await fetch(`${BENCH_URL}/api/sdk/members/bulk`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ members }),
  });
  const body = await res.json();
  const ms = performance.now() - started;
  if (res.status !== 200)
    throw new Error(`bulk answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return { ms, data: body.data };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  if (process.argv.includes('--prepare')) return prepareDatabase();
  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  const creates = [];
  const updates = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      const { run, apiKey } = await seedCommunity(db);
      const fresh = Array.from({ length: SIZE }, (_, i) => ({
        email: `m${i}-${run}@bench.test`,
        name: `Member ${i}`,
      }));
      const created = await timedBulk(apiKey, fresh);
      if (created.data.created !== SIZE)
        throw new Error(`expected ${SIZE} created, got ${created.data.created}`);
      const changed = fresh.map((m, i) => ({
        ...m,
        name: `Renamed ${i}`,
        role: i % 2 ? 'MODERATOR' : 'ADMIN',
      }));
      const updated = await timedBulk(apiKey, changed);
      if (updated.data.updated !== SIZE)
        throw new Error(`expected ${SIZE} updated, got ${updated.data.updated}`);
      creates.push(created.ms);
      updates.push(updated.ms);
      console.log(
        `round ${round}: ${SIZE} new ${created.ms.toFixed(0)} ms, ${SIZE} updates ${updated.ms.toFixed(0)} ms`,
      );
    }
  } finally {
    await db.end();
  }
  const verdict = (ms) => (ms < TARGET_MS ? 'OK' : 'OVER TARGET');
  console.log(
    `median: new ${median(creates).toFixed(0)} ms (${verdict(median(creates))}), ` +
      `updates ${median(updates).toFixed(0)} ms (${verdict(median(updates))}); target < ${TARGET_MS} ms`,
  );
  record(
    'members-bulk',
    [
      ['new members', creates],
      ['the same members updated', updates],
    ].map(([series, times]) => ({
      series: `${SIZE} ${series}`,
      unit: 'ms per request, median of the rounds',
      service: Math.round(median(times)),
      rounds: ROUNDS,
      target: `< ${TARGET_MS} ms`,
    })),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
