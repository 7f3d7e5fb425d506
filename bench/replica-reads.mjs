// Benchmark: the delivery log read from the standby against the same read from the primary, in one invocation,
// on the failover formation (test/ha/cluster.sh: two PostgreSQL 15 nodes with synchronous replication behind
// HAProxy, started in a temporary directory and stopped at the end, however the bench ends). Two APIs on the
// formation's WRITE_URL: one with DATABASE_READ_URL = its READ_URL (the lag-tolerant reads go to the standby,
// docs/architecture.md#read-replicas), one without (every read on the primary). Each loaded in turn by wrk with
// the write benches' settings (bench/lib/write-bench.mjs: 16 connections, two threads, 3 s warm-up + 15 s) on
//
//   GET /api/communities/{id}/webhooks/{id}/deliveries?status=FAILED&limit=50    Bearer, 100,000 attempts
//
// in BENCH_READ_ROUNDS (2) rounds, the order alternating. Prints replica / primary (of the summed rates) and each
// round's, p99s, each API's CPU time per request of the measured runs (the machine's other work moves it less
// than the rates), and the replica API's database_reads_total by target: the check that its reads did go to
// the standby. Target: >= 0.9x. No floor: both sides are the service, in the same minutes' conditions. A third API,
// DATABASE_READ_URL = WRITE_URL (`routed`: the replica's routing and read-your-writes check, the reads on the
// primary), tells the routing's share of the difference from the standby's.
//
//   npm run build && node bench/replica-reads.mjs   # as root; pg_autoctl and haproxy (test/ha/run.sh installs them)
//
// Env: BENCH_PORT (3500; the other APIs on the next two ports), BENCH_READ_ROUNDS (2), BENCH_ATTEMPTS (100000), the
// floor's CONNS, WARMUP, DURATION. BENCH_RECORD=1 (or --record) appends one line to
// bench/results/replica-reads.jsonl (lib/record.mjs).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import pg from 'pg';
import { fetch } from 'undici';
import { ratio } from './lib/floor.mjs';
import { standbyCaughtUp, startFormation, stopApi } from './lib/formation.mjs';
import { record } from './lib/record.mjs';
import { bearerFor, insertAttempts, migrate, PORT, ROOT, seed, startApi } from './lib/read-bench.mjs';
import { LOAD, wrkRun } from './lib/write-bench.mjs';

const require = createRequire(import.meta.url);
const { PasswordService } = require(resolve(ROOT, 'dist/modules/auth/password.service.js'));

const TARGET = 0.9;
const READ_ROUNDS = Number(process.env.BENCH_READ_ROUNDS ?? 2);
const ATTEMPTS = Number(process.env.BENCH_ATTEMPTS ?? 100_000);
const PASSWORD = 'bench password of the owner';

/** A port nobody listens on now (the metrics ports of the two APIs). */
const freePort = () =>
  new Promise((resolvePort, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
    server.on('error', reject);
  });

/** The owner's password, an endpoint and its delivery log of ATTEMPTS attempts (one in ten FAILED). */
async function seedLog(db, communityId, ownerId) {
  await db.query('UPDATE users SET password_hash = $1 WHERE id = $2', [
    await new PasswordService().hash(PASSWORD),
    ownerId,
  ]);
  const endpoint = await db.query(
    `INSERT INTO webhook_endpoints (id, community_id, url, events, updated_at)
     VALUES (gen_random_uuid(), $1, 'https://receiver.bench.test/hook', ARRAY['tweet.created'], now()) RETURNING id`,
    [communityId],
  );
  const endpointId = endpoint.rows[0].id;
  await insertAttempts(db, { communityId, endpointId, count: ATTEMPTS });
  await db.query('VACUUM ANALYZE webhook_deliveries');
  return endpointId;
}

/**
 * A process's CPU time so far (user + system, /proc/<pid>/stat), in seconds: per request answered it is
 * what one side costs its API whatever share of the cores the machine's other work leaves it.
 */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

/** database_reads_total of an API's /metrics, summed by target: { replica: n, primary: m }. */
async function readsByTarget(metricsPort) {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const byTarget = {};
  for (const [, target, n] of text.matchAll(/^database_reads_total\{[^}]*target="(\w+)"[^}]*\} (\d+)/gm))
    byTarget[target] = (byTarget[target] ?? 0) + Number(n);
  return byTarget;
}

async function main() {
  const formation = await startFormation();
  const apis = [];
  try {
    const { WRITE_URL: writeUrl, READ_URL: readUrl } = formation;
    migrate(writeUrl);
    const db = new pg.Client({ connectionString: writeUrl });
    await db.connect();
    const { communityId, ownerId } = await seed(db);
    const endpointId = await seedLog(db, communityId, ownerId);
    await db.end();
    // the standby serves the same rows, with the primary's statistics and visibility map
    await standbyCaughtUp(writeUrl, readUrl);

    const side = async (name, port, extraEnv) => {
      const metricsPort = await freePort();
      const api = await startApi({
        DATABASE_URL: writeUrl,
        PORT: String(port),
        METRICS_PORT: String(metricsPort),
        ...extraEnv,
      });
      apis.push(api);
      return { name, api, metricsPort, baseUrl: `http://127.0.0.1:${port}` };
    };
    const primary = await side('primary', PORT, {});
    const replica = await side('replica', PORT + 1, { DATABASE_READ_URL: readUrl });
    const routed = await side('routed', PORT + 2, { DATABASE_READ_URL: writeUrl });
    const bearer = await bearerFor(
      { email: 'owner@bench.test', password: PASSWORD, communityId },
      primary.baseUrl,
    );
    const path = `/api/communities/${communityId}/webhooks/${endpointId}/deliveries?status=FAILED&limit=50`;
    for (const { baseUrl } of [primary, replica, routed]) {
      const check = await fetch(`${baseUrl}${path}`, { headers: bearer });
      if (check.status !== 200)
        throw new Error(`${path}: ${check.status} ${(await check.text()).slice(0, 200)}`);
    }

    // rounds of runs, the order alternating, so a load that drifts (the machine is shared) weighs on all alike
    const rounds = [];
    for (let i = 0; i < READ_ROUNDS; i++) {
      const runs = {};
      const order = [primary, replica, routed];
      for (const s of i % 2 === 0 ? order : order.reverse()) {
        let cpuBefore = 0;
        const run = await wrkRun({
          method: 'GET',
          path,
          body: null,
          baseUrl: s.baseUrl,
          headers: bearer,
          beforeMeasured: () => (cpuBefore = cpuSeconds(s.api.pid)),
        });
        const requests = run.rps * LOAD.durationSecs;
        runs[s.name] = {
          ...run,
          apiCpuUsPerRequest: Math.round(((cpuSeconds(s.api.pid) - cpuBefore) / requests) * 1e6),
        };
      }
      rounds.push({ ...runs, ratio: ratio(runs.replica.rps, runs.primary.rps) });
    }
    const sum = (name) => rounds.reduce((total, round) => total + round[name].rps, 0);
    const r = ratio(sum('replica'), sum('primary'));
    const reads = {
      replicaApi: await readsByTarget(replica.metricsPort),
      primaryApi: await readsByTarget(primary.metricsPort),
    };
    const replicaShare = Number(
      (
        (reads.replicaApi.replica ?? 0) /
        ((reads.replicaApi.replica ?? 0) + (reads.replicaApi.primary ?? 0))
      ).toFixed(3),
    );
    const p99 = (name) => Math.max(...rounds.map((round) => round[name].p99Ms));
    const cpu = (name) =>
      Math.round(rounds.reduce((t, round) => t + round[name].apiCpuUsPerRequest, 0) / READ_ROUNDS);
    const apiCpuUsPerRequest = { primary: cpu('primary'), replica: cpu('replica'), routed: cpu('routed') };
    console.log(
      JSON.stringify({
        benchmark: 'replica-reads',
        date: new Date().toISOString().slice(0, 10),
        route: `GET ${path.replace(/[0-9a-f-]{36}/g, '{id}')} (Bearer), ${ATTEMPTS} attempts, ${LOAD.connections} connections`,
        rounds,
        replicaRps: Math.round(sum('replica') / READ_ROUNDS),
        primaryRps: Math.round(sum('primary') / READ_ROUNDS),
        ratio: r,
        replicaP99Ms: p99('replica'),
        primaryP99Ms: p99('primary'),
        routedRps: Math.round(sum('routed') / READ_ROUNDS),
        routedToPrimary: ratio(sum('routed'), sum('primary')),
        replicaToRouted: ratio(sum('replica'), sum('routed')),
        apiCpuUsPerRequest,
        databaseReadsTotal: reads,
        replicaShare,
        targets: `replica / primary >= ${TARGET}; the replica API's reads on the standby (database_reads_total target="replica")`,
        pass: r >= TARGET && replicaShare >= 0.99,
      }),
    );
    record('replica-reads', [
      {
        series: 'delivery log FAILED, replica / primary',
        unit: 'req/s (wrk)',
        service: Math.round(sum('replica') / READ_ROUNDS),
        primary: Math.round(sum('primary') / READ_ROUNDS),
        ratio: r,
        target: `>= ${TARGET}`,
        p99Ms: p99('replica'),
        primaryP99Ms: p99('primary'),
        roundRatios: rounds.map((round) => round.ratio),
        routed: Math.round(sum('routed') / READ_ROUNDS),
        routedToPrimary: ratio(sum('routed'), sum('primary')),
        apiCpuUsPerRequest,
        replicaShare,
      },
    ]);
  } finally {
    for (const api of apis) await stopApi(api);
    formation.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
