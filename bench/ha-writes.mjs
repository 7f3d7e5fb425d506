// Benchmark: the tweet write on the failover formation (test/ha/cluster.sh: two PostgreSQL 15 nodes with
// synchronous replication behind HAProxy) against the floor's `write` on the single local node, in one
// invocation: the formation is started in a temporary directory (and stopped at the end, however the bench
// ends), migrated and seeded as bench/writes.mjs seeds its database, the API started on its WRITE_URL, and
// the floor's round (../shared/bench-floor/floor-read.mjs, VARIANTS=write, on 127.0.0.1:5432) posts the same
// 200-character body to its own server and to POST /api/sdk/tweets, 16 connections, autocannon and wrk, as
// bench/writes.mjs's `tweets` route. Target: >= 0.6x of the floor (the write floor is single-node: this ratio
// holds everything the formation costs, HAProxy's hop and the standby's flush at each commit included).
//
// What synchronous commit costs: then the same route through this script's wrk (bench/lib/write-bench.mjs)
// with synchronous_commit `on` (the formation's: each commit waits for the standby's flush) and `local` (the
// primary's flush only), in BENCH_COMMIT_PAIRS (1) pairs, the order alternating; local / on is the price.
//
//   npm run build && node bench/ha-writes.mjs       # as root; pg_autoctl and haproxy (test/ha/run.sh installs them)
//
// Env: BENCH_PORT (3500), BENCH_ROUNDS (1), BENCH_COMMIT_PAIRS (1), the floor's CONNS, WARMUP, DURATION.
// BENCH_RECORD=1 (or --record) appends the lines to bench/results/ha-writes.jsonl (lib/record.mjs); without the
// floor (FLOOR_DIR missing) the formation's figures are printed without a ratio.
import pg from 'pg';
import { fetch } from 'undici';
import { insertApiKey } from './lib/api-key.mjs';
import { ratio, ratioIfFloor } from './lib/floor.mjs';
import { replicationState, setSynchronousCommit, startFormation, stopApi } from './lib/formation.mjs';
import { record } from './lib/record.mjs';
import { BENCH_URL, figures, migrate, peakRssMiB, seed, startApi } from './lib/read-bench.mjs';
import { LOAD, PROBE_BODY, vacuumWritten, writeFloor, writesCommunity, wrkRun } from './lib/write-bench.mjs';

const TARGET = 0.6;
const COMMIT_PAIRS = Number(process.env.BENCH_COMMIT_PAIRS ?? 1);
const ROUTE = '/api/sdk/tweets';

/**
 * The route under synchronous_commit `on` and `local` in turn, each run after a vacuum (the writes'
 * dead rows of the run before would otherwise weigh on the next); the pair of the median ratio.
 */
async function commitPairs(db, writeUrl, apiKey) {
  const pairs = [];
  for (let i = 0; i < COMMIT_PAIRS; i++) {
    const runs = {};
    for (const mode of i % 2 === 0 ? ['on', 'local'] : ['local', 'on']) {
      await setSynchronousCommit(writeUrl, mode);
      await vacuumWritten(db);
      runs[mode] = await wrkRun({ method: 'POST', path: ROUTE, body: PROBE_BODY }, apiKey);
    }
    pairs.push({ ...runs, localToOn: ratio(runs.local.rps, runs.on.rps) });
  }
  await setSynchronousCommit(writeUrl, 'on');
  const median = [...pairs].sort((x, y) => x.localToOn - y.localToOn)[Math.floor(pairs.length / 2)];
  return { ...median, pairRatios: pairs.map((p) => p.localToOn) };
}

async function main() {
  const formation = await startFormation();
  let db;
  let api;
  try {
    const writeUrl = formation.WRITE_URL;
    migrate(writeUrl);
    db = new pg.Client({ connectionString: writeUrl });
    await db.connect();
    // the database bench/writes.mjs writes into: 3 x 100,000 tweets, its own community, a key
    const { ownerId } = await seed(db);
    const communityId = await writesCommunity(db, ownerId);
    const apiKey = await insertApiKey(db, communityId, ownerId);
    const replication = await replicationState(writeUrl);
    if (!replication.standbys.some((s) => /\((sync|quorum)\)/.test(s)))
      throw new Error(`no synchronous standby: ${JSON.stringify(replication)}`);

    api = await startApi({ DATABASE_URL: writeUrl });
    const url = `${BENCH_URL}${ROUTE}`;
    const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
    const check = await fetch(url, { method: 'POST', headers, body: PROBE_BODY });
    if (check.status !== 201) throw new Error(`unexpected answer ${check.status}: ${await check.text()}`);

    const round = await writeFloor({
      COMPARE_URL: url,
      COMPARE_KEY: apiKey,
      COMPARE_PID: String(api.pid),
      COMPARE_METHOD: 'POST',
    });
    const floor = round.floor;
    // the floor posts to both identically; without it this script's wrk posts the same body
    const service = floor
      ? figures(round.lines, 'compare:')
      : { wrk: await wrkRun({ method: 'POST', path: ROUTE, body: PROBE_BODY }, apiKey), peakRssMiB: 0 };
    service.peakRssMiB = Math.max(service.peakRssMiB, peakRssMiB(api.pid));
    const r = ratioIfFloor(service.wrk.rps, floor?.wrk.rps);

    const commit = await commitPairs(db, writeUrl, apiKey);
    console.log(
      JSON.stringify({
        benchmark: 'ha-writes',
        date: new Date().toISOString().slice(0, 10),
        route: `POST ${ROUTE} (X-Api-Key, 200-character content) on the formation's WRITE_URL, ${LOAD.connections} connections`,
        replication,
        service,
        floor,
        ratio: r,
        synchronousCommit: {
          on: commit.on,
          local: commit.local,
          localToOn: commit.localToOn,
          pairRatios: commit.pairRatios,
          costShare: Number((1 - 1 / commit.localToOn).toFixed(2)),
        },
        targets: `ratio >= ${TARGET} (formation with synchronous replication / single-node floor)`,
        pass: floor ? r >= TARGET : undefined,
      }),
    );
    record('ha-writes', [
      {
        series: 'tweets (synchronous replication)',
        unit: 'req/s (wrk)',
        service: service.wrk.rps,
        floor: floor?.wrk.rps,
        ratio: r,
        target: `>= ${TARGET}`,
        p50Ms: service.wrk.p50Ms,
        p99Ms: service.wrk.p99Ms,
        floorP99Ms: floor?.wrk.p99Ms,
        peakRssMiB: service.peakRssMiB,
        floorPeakRssMiB: floor?.peakRssMiB,
      },
      // the price of the standby's flush, the same route's two runs: not a ratio to the floor, so kept
      // out of `ratio` (the chart draws that one against the floor's 1)
      {
        series: 'synchronous_commit on / local',
        unit: 'req/s (wrk)',
        service: commit.on.rps,
        local: commit.local.rps,
        onToLocal: ratio(commit.on.rps, commit.local.rps),
        p99Ms: commit.on.p99Ms,
        localP99Ms: commit.local.p99Ms,
        pairRatios: commit.pairRatios,
      },
    ]);
  } finally {
    await stopApi(api);
    await db?.end().catch(() => undefined);
    formation.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
