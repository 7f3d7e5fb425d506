// POST /api/sdk/tweets with an Idempotency-Key (a fresh one per request) beside the same route without
// one, in one invocation against one API process: the key costs its write the key's lock and lookup
// and the stored answer, in the write's transaction (docs/idempotency.md#cost). Each side runs
// warm-up then measured rounds, alternating (no-key, key, no-key, key, ...), 16 connections, the
// 200-character body of bench/writes.mjs; prints one JSON line with both sides and the ratio.
// Target: with a key >= 0.8x without.
//
//   npm run build && node bench/idempotent-writes.mjs
//
// Env: DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/cp_bench), BENCH_PORT (3500),
// BENCH_ROUNDS (2), DURATION (10 s a round), CONNS (16).
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import pg from 'pg';
import { insertApiKey } from './lib/api-key.mjs';
import { BENCH_URL, DATABASE_URL, ensureDatabase, peakRssMiB, seed, startApi } from './lib/read-bench.mjs';

const BODY = JSON.stringify({ content: 'A write of the benchmark: '.padEnd(200, 'x') });
const SLUG = 'bench-idempotent-writes';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const DURATION = Number(process.env.DURATION ?? 10);
const CONNS = Number(process.env.CONNS ?? 16);
const TARGET = 0.8;

async function community(db, ownerId) {
  const found = await db.query('SELECT id FROM communities WHERE slug = $1', [SLUG]);
  if (found.rowCount > 0) return found.rows[0].id;
  const id = randomUUID();
  await db.query(
    `INSERT INTO communities (id, slug, name, plan, updated_at) VALUES ($1, $2, $2, 'PRO', now())`,
    [id, SLUG],
  );
  await db.query(
    `INSERT INTO memberships (id, community_id, user_id, role, updated_at) VALUES ($1, $2, $3, 'OWNER', now())`,
    [randomUUID(), id, ownerId],
  );
  return id;
}

/** What a run wrote, then VACUUM ANALYZE (the read benches share this database). */
async function empty(db, id) {
  await db.query('DELETE FROM tweets WHERE community_id = $1', [id]);
  await db.query('DELETE FROM outbox_events WHERE community_id = $1', [id]);
  await db.query('DELETE FROM idempotency_keys');
  await db.query('VACUUM ANALYZE tweets, outbox_events, idempotency_keys');
}

function load(apiKey, withKey, duration) {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${BENCH_URL}/api/sdk/tweets`,
        method: 'POST',
        connections: CONNS,
        duration,
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: BODY,
        requests: [
          {
            setupRequest: (request) =>
              withKey
                ? { ...request, headers: { ...request.headers, 'idempotency-key': randomUUID() } }
                : request,
          },
        ],
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
    void instance;
  });
}

async function main() {
  await ensureDatabase();
  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  const { ownerId } = await seed(db);
  const communityId = await community(db, ownerId);
  await empty(db, communityId);
  const apiKey = await insertApiKey(db, communityId, ownerId);
  const api = await startApi();
  try {
    const sides = { without: [], with: [] };
    await load(apiKey, false, 3);
    await load(apiKey, true, 3);
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of ['without', 'with']) {
        const r = await load(apiKey, side === 'with', DURATION);
        if (r.non2xx > 0 || r.errors > 0) throw new Error(`${side}: ${r.non2xx} non-2xx, ${r.errors} errors`);
        sides[side].push({ rps: r.requests.average, p50Ms: r.latency.p50, p99Ms: r.latency.p99 });
      }
    }
    const mean = (xs, f) => xs.reduce((s, x) => s + f(x), 0) / xs.length;
    const summary = (xs) => ({
      rps: Math.round(mean(xs, (x) => x.rps)),
      p50Ms: mean(xs, (x) => x.p50Ms),
      p99Ms: mean(xs, (x) => x.p99Ms),
    });
    const without = summary(sides.without);
    const withKey = summary(sides.with);
    const kept = (await db.query('SELECT count(*)::int AS n FROM idempotency_keys')).rows[0].n;
    const ratio = Math.round((withKey.rps / without.rps) * 100) / 100;
    console.log(
      JSON.stringify({
        benchmark: 'idempotent-writes',
        date: new Date().toISOString().slice(0, 10),
        route: `POST /api/sdk/tweets (X-Api-Key, 200-character content), ${CONNS} connections, ${ROUNDS}x${DURATION}s a side`,
        without,
        with: withKey,
        ratio,
        answersKept: kept,
        peakRssMiB: peakRssMiB(api.pid),
        target: `with a key >= ${TARGET}x without`,
        pass: ratio >= TARGET,
      }),
    );
  } finally {
    api.kill('SIGTERM');
    await empty(db, communityId);
    await db.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
