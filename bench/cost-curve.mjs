// The cost curve: how the hot paths grow with the data and the fleet. One command:
//
//   npm run build && node bench/cost-curve.mjs
//
// 1. Reads at 10^5, 10^6 and 10^7 rows: the tweets page (X-Api-Key; one community holding every
//    tweet) and the delivery log (Bearer; one endpoint holding every attempt, one in ten FAILED,
//    `status=FAILED&limit=50`), p50 and p99 under the floor's load (16 connections, 3 s warm-up +
//    BENCH_CURVE_SECONDS measured, autocannon), the API restarted at each size. The floor's `best`
//    read (300,000 tweets, its fixed size) runs first in the same invocation, as the reference.
// 2. Fan-out time at 10, 100, 1,000 and 10,000 endpoints: bench/delivery-fanout.mjs once per size.
// 3. Deliveries per second with 1, 2 and 3 workers: bench/delivery-throughput.mjs with BENCH_WORKERS.
//
// BENCH_CURVE_PARTS picks parts (reads,fanout,workers; default all), BENCH_CURVE_SIZES the read sizes
// (default 100000,1000000,10000000), BENCH_CURVE_FANOUT the endpoint counts. Prints one JSON line per
// measurement and a summary line. Its database (cp_bench_curve) is dropped at the end unless
// BENCH_KEEP_DB=1 (then a rerun grows it no further than asked). BENCH_RECORD=1 (or --record) appends
// one line per measurement to bench/results/cost-curve.jsonl (lib/record.mjs; the fan-out and workers
// benches it runs do not record their own). Without the floor (FLOOR_DIR missing) nothing has a ratio.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

process.env.DATABASE_URL ??= 'postgresql://postgres@127.0.0.1:5432/cp_bench_curve';
const HERE = dirname(fileURLToPath(import.meta.url));
const { default: pg } = await import('pg');
const { fetch } = await import('undici');
const { insertApiKey } = await import('./lib/api-key.mjs');
const { insertAttempts } = await import('./lib/read-bench.mjs');
const { floorPresent, ratioIfFloor, runFloor } = await import('./lib/floor.mjs');
const { record } = await import('./lib/record.mjs');
const bench = await import('./lib/read-bench.mjs');

const require = createRequire(import.meta.url);

const list = (value, fallback) => (value ?? fallback).split(',').filter(Boolean);
const PARTS = list(process.env.BENCH_CURVE_PARTS, 'reads,fanout,workers');
const SIZES = list(process.env.BENCH_CURVE_SIZES, '100000,1000000,10000000').map(Number);
const FANOUT = list(process.env.BENCH_CURVE_FANOUT, '10,100,1000,10000').map(Number);
const WORKERS = [1, 2, 3];
const SECONDS = Number(process.env.BENCH_CURVE_SECONDS ?? 10);
const PASSWORD = 'cost curve password of the owner';
const SLUG = 'bench-curve';

/** The curve's community, its owner (with a password, for the Bearer route) and its endpoint. */
async function curveCommunity(db) {
  const found = await db.query(
    `SELECT c.id, m.user_id, e.id AS endpoint_id FROM communities c
       JOIN memberships m ON m.community_id = c.id AND m.role = 'OWNER'
       JOIN webhook_endpoints e ON e.community_id = c.id
      WHERE c.slug = $1`,
    [SLUG],
  );
  if (found.rowCount > 0) {
    const row = found.rows[0];
    return { communityId: row.id, ownerId: row.user_id, endpointId: row.endpoint_id };
  }
  const { PasswordService } = require(resolve(bench.ROOT, 'dist/modules/auth/password.service.js'));
  const [communityId, ownerId, endpointId] = [randomUUID(), randomUUID(), randomUUID()];
  await db.query(
    `INSERT INTO users (id, email, name, password_hash, updated_at) VALUES ($1, 'owner@curve.test', 'Curve Owner', $2, now())`,
    [ownerId, await new PasswordService().hash(PASSWORD)],
  );
  await db.query(
    `INSERT INTO communities (id, slug, name, plan, updated_at) VALUES ($1, $2, $2, 'ENTERPRISE', now())`,
    [communityId, SLUG],
  );
  await db.query(
    `INSERT INTO memberships (id, community_id, user_id, role, updated_at) VALUES ($1, $2, $3, 'OWNER', now())`,
    [randomUUID(), communityId, ownerId],
  );
  await db.query(
    `INSERT INTO webhook_endpoints (id, community_id, url, events, updated_at)
     VALUES ($1, $2, 'https://receiver.curve.test/hook', ARRAY['tweet.created'], now())`,
    [endpointId, communityId],
  );
  return { communityId, ownerId, endpointId };
}

/** Grows the community's tweets and the endpoint's attempts to `size` each (set-based, in batches). */
async function growTo(db, { communityId, ownerId, endpointId }, size) {
  const count = async (table, column, id) =>
    (await db.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${column} = $1`, [id])).rows[0].n;
  const started = Date.now();
  const batch = 1_000_000;
  for (let have = await count('tweets', 'community_id', communityId); have < size; have += batch) {
    await db.query(
      `INSERT INTO tweets (id, community_id, author_id, content, created_at, updated_at)
       SELECT gen_random_uuid(), $1, $2, 'Curve tweet number ' || g,
              now() - g * interval '1 second', now() - g * interval '1 second'
         FROM generate_series($3::int + 1, $3::int + $4::int) AS g`,
      [communityId, ownerId, have, Math.min(batch, size - have)],
    );
  }
  for (let have = await count('webhook_deliveries', 'endpoint_id', endpointId); have < size; have += batch)
    await insertAttempts(db, { communityId, endpointId, from: have, count: Math.min(batch, size - have) });
  await db.query('VACUUM ANALYZE tweets, webhook_deliveries');
  return Date.now() - started;
}

async function reads() {
  await bench.ensureDatabase();
  const db = new pg.Client({ connectionString: bench.DATABASE_URL });
  await db.connect();
  try {
    const curve = await curveCommunity(db);
    const apiKey = await insertApiKey(db, curve.communityId, curve.ownerId);
    const floor = floorPresent()
      ? bench.figures(
          (
            await runFloor(
              'floor-read.mjs',
              { VARIANTS: bench.FLOOR_READ_VARIANT, ROUNDS: '1' },
              { allLines: true },
            )
          ).lines,
          bench.FLOOR_READ_LINE,
        ).autocannon
      : null;
    const rows = [];
    for (const size of SIZES) {
      const seededMs = await growTo(db, curve, size);
      const api = await bench.startApi();
      try {
        const login = await fetch(`${bench.BENCH_URL}/api/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            email: 'owner@curve.test',
            password: PASSWORD,
            communityId: curve.communityId,
          }),
        });
        const token = (await login.json()).data.accessToken;
        const row = {
          benchmark: 'cost-curve:reads',
          rows: size,
          seededMs,
          tweetsPage: await bench.measureRoute(
            '/api/sdk/tweets?page=1&limit=20',
            { 'x-api-key': apiKey },
            SECONDS,
          ),
          deliveryLogFailed: await bench.measureRoute(
            `/api/communities/${curve.communityId}/webhooks/${curve.endpointId}/deliveries?status=FAILED&limit=50`,
            { authorization: `Bearer ${token}` },
            SECONDS,
          ),
          floorBestAt300k: floor,
        };
        console.log(JSON.stringify(row));
        rows.push(row);
      } finally {
        api.kill('SIGTERM');
      }
    }
    return rows;
  } finally {
    await db.end();
    await bench.dropDatabaseUnlessKept();
  }
}

/** Runs another bench script with `env` and returns the JSON line it prints last (recorded here, not there). */
async function benchLine(script, env) {
  const { stdout } = await promisify(execFile)(process.execPath, [resolve(HERE, script)], {
    env: { ...process.env, ...env, BENCH_RECORD: '0' },
    maxBuffer: 64 * 1024 * 1024,
  });
  const line = stdout
    .trim()
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{'));
  if (!line) throw new Error(`${script} printed no figures`);
  return JSON.parse(line);
}

async function fanout() {
  const rows = [];
  for (const endpoints of FANOUT) {
    const result = await benchLine('delivery-fanout.mjs', { BENCH_ENDPOINTS: String(endpoints) });
    const row = { benchmark: 'cost-curve:fanout', endpoints, result };
    console.log(JSON.stringify(row));
    rows.push(row);
  }
  return rows;
}

async function workers() {
  const rows = [];
  for (const count of WORKERS) {
    const result = await benchLine('delivery-throughput.mjs', { BENCH_WORKERS: String(count) });
    const row = { benchmark: 'cost-curve:workers', workers: count, result };
    console.log(JSON.stringify(row));
    rows.push(row);
  }
  return rows;
}

/** The measurements as lines of bench/results/cost-curve.jsonl, each with its floor of the same invocation. */
function resultLines({ reads: readRows = [], fanout: fanoutRows = [], workers: workerRows = [] }) {
  return [
    ...readRows.flatMap((row) => [
      {
        series: `tweets page at ${row.rows} rows`,
        unit: 'req/s (autocannon)',
        service: row.tweetsPage.rps,
        floor: row.floorBestAt300k?.rps,
        ratio: ratioIfFloor(row.tweetsPage.rps, row.floorBestAt300k?.rps),
        p50Ms: row.tweetsPage.p50Ms,
        p99Ms: row.tweetsPage.p99Ms,
        seededMs: row.seededMs,
      },
      {
        series: `delivery log FAILED at ${row.rows} rows`,
        unit: 'req/s (autocannon)',
        service: row.deliveryLogFailed.rps,
        floor: row.floorBestAt300k?.rps,
        ratio: ratioIfFloor(row.deliveryLogFailed.rps, row.floorBestAt300k?.rps),
        p50Ms: row.deliveryLogFailed.p50Ms,
        p99Ms: row.deliveryLogFailed.p99Ms,
      },
    ]),
    ...fanoutRows.map(({ endpoints, result }) => ({
      series: `fan-out to ${endpoints}`,
      unit: 'ms to the last receipt',
      service: result.service.lastReceiptMs,
      floor: result.floor?.deliverJobsMs,
      ratio: result.ratio,
    })),
    ...workerRows.map(({ workers: count, result }) => ({
      series: `${count} worker${count > 1 ? 's' : ''}, ten endpoints`,
      unit: 'deliveries/s',
      service: result.service.deliveriesPerSecond,
      floor: result.floor?.deliveriesPerSecond,
      ratio: result.ratio,
      workerCpuMsPerDelivery: result.service.workerCpuMsPerDelivery,
      postgresCpuMsPerDelivery: result.service.postgresCpuMsPerDelivery,
    })),
  ];
}

const parts = { reads, fanout, workers };
const summary = {};
for (const part of PARTS) {
  if (!parts[part]) throw new Error(`unknown part ${part}: one of ${Object.keys(parts).join(', ')}`);
  summary[part] = await parts[part]();
}
record('cost-curve', resultLines(summary));
console.log(
  JSON.stringify({ benchmark: 'cost-curve', date: new Date().toISOString().slice(0, 10), ...summary }),
);
