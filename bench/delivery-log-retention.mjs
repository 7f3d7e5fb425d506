// The delivery log's retention at scale (docs/api.md#retention-of-the-delivery-log), in one invocation:
//
//  1. The compiled DeliveryLogRetention, as the worker runs it, on BENCH_RETENTION_ATTEMPTS attempts
//     (default 1,000,000) spread evenly over 100 days in BENCH_RETENTION_COMMUNITIES communities (default
//     100, one endpoint each, PRO: 90 days kept; one attempt in ten of each endpoint FAILED). Then three
//     cycles of a day: a day's worth of new attempts, the clock a day on, one prune (a day past
//     retention), VACUUM (what autovacuum does on its own schedule, docs/operations.md#the-delivery-logs-size).
//  2. The delivery log's page on that table, after the cycles: the floor's `best` round (../shared/bench-floor,
//     through lib/floor.mjs), then the API from dist/ and `GET …/deliveries?status=FAILED&limit=50` of one
//     community's endpoint (the first by id: ATTEMPTS / COMMUNITIES attempts seeded, 90 of their 100 days
//     left) with its owner's Bearer token, measured as the floor measures (autocannon, 16 connections,
//     3 s warm-up + 15 s).
//  3. A delivery's commit → receipt latency with and without a day's prune running: the real worker
//     (lib/delivery-harness.mjs, as delivery-latency.mjs starts it) delivering BENCH_RATE (200) events a
//     second to a local receiver, the worker itself pruning: it runs with WEBHOOK_LOG_PRUNE_INTERVAL set so
//     that its first prune comes after BENCH_SECONDS (15) of deliveries past a 3 s warm-up, and with
//     WEBHOOK_LOG_RETENTION a day shorter than the cycles' clock left it (the same cutoff as a clock a day
//     on), so that prune deletes the next day. The prune's statements are watched in pg_stat_activity:
//     "no prune" is the events delivered after the warm-up and before its first statement, "prune
//     running" the events in flight at any moment between its first statement and its last.
//
// Prints one JSON line: the first prune (the 10 days already past), each cycle's prune time and rows, the
// table's on-disk size after each cycle and the ratio of the third to the first; the page's figures beside
// the floor's; both latencies and their ratio.
//
//   npm run build && node bench/delivery-log-retention.mjs
//   BENCH_RETENTION_ATTEMPTS=10000000 BENCH_RETENTION_COMMUNITIES=1000 node bench/delivery-log-retention.mjs
//
// Env: BENCH_PORT (3500, the API's), BENCH_ROUNDS (1, the floor's), BENCH_RATE, BENCH_SECONDS. Without the
// floor (FLOOR_DIR missing) the page is measured without a ratio; a floor that is there and fails makes the
// bench exit 1. BENCH_RECORD=1 (or --record) appends the run to bench/results/delivery-log-retention.jsonl
// (lib/record.mjs). Its API, worker and receiver are
// gone when it ends, however it ends; its database (cp_bench_delivery_*) and Redis keys when it ends done or
// failed, not when interrupted (Ctrl-C): drop that database by hand then.
import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { fetch } from 'undici';
import {
  benchEnvironment,
  compiled,
  latencyFigures,
  seedEndpoints,
  startReceiver,
  startWorker,
  steadyStream,
  until,
} from './lib/delivery-harness.mjs';
import { floorPresent, ratio, ratioIfFloor, runFloor } from './lib/floor.mjs';
import { record } from './lib/record.mjs';
import {
  bearerFor,
  BENCH_URL,
  figures,
  FLOOR_READ_LINE,
  FLOOR_READ_VARIANT,
  measureRoute,
  ROUNDS,
  startApi,
} from './lib/read-bench.mjs';

const ATTEMPTS = Number(process.env.BENCH_RETENTION_ATTEMPTS ?? 1_000_000);
const COMMUNITIES = Number(process.env.BENCH_RETENTION_COMMUNITIES ?? 100);
const DAYS = 100;
const DAY_MS = 24 * 3600_000;
const CYCLES = 3;
const BATCH = 100_000;
const RATE = Number(process.env.BENCH_RATE ?? 200);
const BASELINE_SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const WARMUP_SECONDS = 3;
const OWNER = { email: 'owner@retention.bench.test', password: 'bench password of the owner' };
/** Targets: a day's prune, the size over three cycles, the page at scale, a delivery beside a prune. */
const TARGET_PRUNE_SECONDS = 5;
const TARGET_GROWTH = 0.1;
const TARGET_PAGE_P99_MS = 20;
const TARGET_PRUNE_LATENCY_RATIO = 2;

/**
 * `count` attempts of the bench's endpoints, the n-th written `newestDaysAgo + n / count × spanDays` days
 * ago, endpoint n mod COMMUNITIES; one in ten of each endpoint's attempts FAILED (500), the rest SUCCESS.
 */
async function insertAttempts(db, count, newestDaysAgo, spanDays, tag) {
  for (let done = 0; done < count; done += BATCH) {
    const rows = Math.min(BATCH, count - done);
    await db.query(
      `INSERT INTO webhook_deliveries (id, community_id, endpoint_id, message_id, event_type, attempt, status,
                                       response_status, duration_ms, created_at, updated_at)
       SELECT gen_random_uuid(), e.community_id, e.id, 'msg_' || $5 || '_' || n, 'tweet.created', 1,
              CASE WHEN (n / $7) % 10 = 0 THEN 'FAILED' ELSE 'SUCCESS' END::"DeliveryStatus",
              CASE WHEN (n / $7) % 10 = 0 THEN 500 ELSE 200 END, 5,
              now() - ($3 + (n::float8 / $4) * $6) * interval '1 day', now()
         FROM generate_series($1::int, $2::int) n
         JOIN (SELECT community_id, id, row_number() OVER (ORDER BY id) - 1 AS k FROM webhook_endpoints) e
           ON e.k = n % $7`,
      [done, done + rows - 1, newestDaysAgo, count, tag, spanDays, COMMUNITIES],
    );
  }
}

async function tableMiB(db) {
  const { rows } = await db.query(`SELECT pg_total_relation_size('webhook_deliveries') AS bytes`);
  return Math.round(Number(rows[0].bytes) / 1048576);
}

/** The first prune and CYCLES days of inserts, prune and VACUUM, run by the compiled retention in this process. */
async function pruneCycles(env) {
  const { loadConfig } = compiled('config/app-config.js');
  const { PrismaService } = compiled('prisma/prisma.service.js');
  const { DeliveryLogRetention } = compiled('modules/webhooks/worker/delivery-log-retention.service.js');
  const { DeliveryLogRetentionStore } = compiled('modules/webhooks/worker/delivery-log-retention.store.js');
  const { config } = loadConfig({ ...process.env, NODE_ENV: 'development', DATABASE_URL: env.databaseUrl });
  const prisma = new PrismaService(config);
  const retention = new DeliveryLogRetention(new DeliveryLogRetentionStore(prisma), config);
  const timed = async (now) => {
    const started = performance.now();
    const deleted = await retention.prune(now);
    return { seconds: Number(((performance.now() - started) / 1000).toFixed(2)), deleted };
  };
  try {
    const first = await timed(new Date());
    await env.db.query('VACUUM webhook_deliveries');
    const cycles = [];
    for (let day = 1; day <= CYCLES; day++) {
      // a day's worth of attempts, written "day" days ahead of the seed's newest
      await insertAttempts(env.db, Math.round(ATTEMPTS / DAYS), -day, 1, `day${day}`);
      const prune = await timed(new Date(Date.now() + day * DAY_MS));
      await env.db.query('VACUUM webhook_deliveries');
      cycles.push({ ...prune, tableMiB: await tableMiB(env.db) });
    }
    return { first, cycles, retentionMs: config.webhookLogRetentionMs };
  } finally {
    await prisma.$disconnect();
    await prisma.pool.end().catch(() => undefined);
  }
}

/** The delivery log's FAILED page of one endpoint through the API, beside the floor's `best` round. */
async function deliveryLogPage(env) {
  const { rows } = await env.db.query(
    `SELECT e.community_id AS "communityId", e.id AS "endpointId",
            (SELECT coalesce(sum(value), 0)::int FROM webhook_delivery_counters c
              WHERE c.community_id = e.community_id AND c.endpoint_id = e.id) AS attempts,
            (SELECT coalesce(sum(value), 0)::int FROM webhook_delivery_counters c
              WHERE c.community_id = e.community_id AND c.endpoint_id = e.id AND c.status = 'FAILED') AS failed
       FROM webhook_endpoints e ORDER BY e.id LIMIT 1`,
  );
  const { communityId, endpointId, attempts, failed } = rows[0];
  const { PasswordService } = compiled('modules/auth/password.service.js');
  const ownerId = randomUUID();
  await env.db.query(
    `INSERT INTO users (id, email, name, password_hash, updated_at) VALUES ($1, $2, 'Bench Owner', $3, now())`,
    [ownerId, OWNER.email, await new PasswordService().hash(OWNER.password)],
  );
  await env.db.query(
    `INSERT INTO memberships (id, community_id, user_id, role, updated_at) VALUES ($1, $2, $3, 'OWNER', now())`,
    [randomUUID(), communityId, ownerId],
  );

  // the floor first, as read-routes.mjs runs it: a failed floor throws, and the bench exits 1
  const floor = floorPresent()
    ? figures(
        (await runFloor('floor-read.mjs', { VARIANTS: FLOOR_READ_VARIANT, ROUNDS }, { allLines: true }))
          .lines,
        FLOOR_READ_LINE,
      ).autocannon
    : null;

  const api = await startApi({ DATABASE_URL: env.databaseUrl, REDIS_KEY_PREFIX: env.prefix });
  try {
    const bearer = await bearerFor({ email: OWNER.email, password: OWNER.password, communityId });
    const path = `/api/communities/${communityId}/webhooks/${endpointId}/deliveries?status=FAILED&limit=50`;
    const probe = await (await fetch(`${BENCH_URL}${path}`, { headers: bearer })).json();
    const items = probe.data?.items ?? [];
    if (items.length !== Math.min(50, failed) || items.some((d) => d.status !== 'FAILED'))
      throw new Error(`unexpected page: ${JSON.stringify(probe).slice(0, 300)}`);
    const service = await measureRoute(path, bearer);
    return {
      route:
        'GET /api/communities/{c}/webhooks/{e}/deliveries?status=FAILED&limit=50 (Bearer), 16 connections',
      endpoint: `the first by id of ${COMMUNITIES} communities' endpoints: ${attempts} attempts, ${failed} FAILED`,
      service,
      floor: floor && { variant: FLOOR_READ_VARIANT, rps: floor.rps, p50Ms: floor.p50Ms, p99Ms: floor.p99Ms },
      rpsRatio: ratioIfFloor(service.rps, floor?.rps),
    };
  } finally {
    const exited = api.exitCode !== null ? Promise.resolve() : new Promise((r) => api.once('exit', r));
    api.kill('SIGTERM');
    await exited;
  }
}

/**
 * Watches the bench database for the retention's delete statements (begun after `since`, wall-clock ms):
 * when the first began and when the last ended. pg_stat_activity keeps a backend's last statement with
 * its start and end while the backend is idle, so a statement shorter than the 10 ms between looks is
 * seen as long as its connection has not run another.
 */
function pruneWatch(databaseUrl, since) {
  const client = new pg.Client({ connectionString: databaseUrl });
  let first;
  let last;
  let active = false;
  let running = true;
  let broken = false;
  let loop;
  return {
    start: async () => {
      await client.connect();
      loop = (async () => {
        while (running) {
          const { rows } = await client.query(
            `SELECT state = 'active' AS active, extract(epoch FROM query_start) * 1000 AS began,
                    extract(epoch FROM CASE WHEN state = 'active' THEN clock_timestamp() ELSE state_change END)
                      * 1000 AS ended
               FROM pg_stat_activity
              WHERE datname = current_database() AND pid <> pg_backend_pid()
                AND query LIKE '%DELETE FROM webhook_deliveries w USING candidates%'
                AND query_start >= to_timestamp($1::float8 / 1000)`,
            [since],
          );
          for (const r of rows) {
            first = Math.min(first ?? Infinity, Number(r.began));
            last = Math.max(last ?? 0, Number(r.ended));
          }
          active = rows.some((r) => r.active);
          await new Promise((r) => setTimeout(r, 10));
        }
      })().catch((err) => {
        // a failed look ends the watching (and the stream with it); the bench then says it saw no prune
        process.stderr.write(`the prune watch stopped: ${err.message}\n`);
        broken = true;
      });
    },
    /** a prune was seen and none of its statements for 1.5 s since its last ended (or the watch broke) */
    ended: () => broken || (first !== undefined && !active && Date.now() - last > 1500),
    /** when the prune's first statement began and its last ended; undefined unless both were seen */
    window: () => (broken || first === undefined ? undefined : { start: first, end: last }),
    stop: async () => {
      if (!running) return;
      running = false;
      await loop;
      await client.end();
    },
  };
}

/** Commit → receipt latency of the real worker before and while its own prune deletes a day. */
async function latencyBesidePrune(env, retentionMs) {
  const receiver = await startReceiver();
  const { communityId } = await seedEndpoints(env.db, 1, receiver.url);
  // the seeded endpoints' attempts (the counters follow every delete; the receiver's endpoint only grows)
  const logged = async () =>
    Number(
      (
        await env.db.query(
          `SELECT coalesce(sum(value), 0)::bigint AS n FROM webhook_delivery_counters WHERE community_id <> $1`,
          [communityId],
        )
      ).rows[0].n,
    );
  const before = await logged();
  const pruneAfterSeconds = WARMUP_SECONDS + BASELINE_SECONDS + 2;
  const since = Date.now();
  const watch = pruneWatch(env.databaseUrl, since);
  await watch.start();
  let worker;
  try {
    worker = await startWorker({
      DATABASE_URL: env.databaseUrl,
      REDIS_KEY_PREFIX: env.prefix,
      // the cycles left the log pruned to a clock CYCLES days on: a day further is a retention CYCLES + 1 days
      // shorter (a plain number is milliseconds)
      WEBHOOK_LOG_RETENTION: String(retentionMs - (CYCLES + 1) * DAY_MS),
      WEBHOOK_LOG_PRUNE_INTERVAL: `${pruneAfterSeconds}s`,
    });
    const streamStart = Date.now();
    const giveUp = streamStart + (pruneAfterSeconds + 600) * 1000;
    const sentAt = await steadyStream(env.db, communityId, {
      rate: RATE,
      stop: () => watch.ended() || Date.now() > giveUp,
    });
    const window = watch.ended() ? watch.window() : undefined;
    await watch.stop();
    if (!window) throw new Error("the worker's prune was not seen to begin and end");
    const { start, end } = window;
    await until(
      'every delivery',
      () => [...sentAt.keys()].every((id) => receiver.firstSeen.has(id)),
      120_000,
      100,
    );
    const deleted = before - (await logged());
    const flights = [...sentAt].map(([id, at]) => ({ at, got: receiver.firstSeen.get(id) }));
    const sorted = (list) => list.map((f) => f.got - f.at).sort((a, b) => a - b);
    const quiet = sorted(flights.filter((f) => f.at >= streamStart + WARMUP_SECONDS * 1000 && f.got < start));
    const pruning = sorted(flights.filter((f) => f.got >= start && f.at <= end));
    if (quiet.length === 0 || pruning.length === 0)
      throw new Error(`no events to compare: ${quiet.length} before the prune, ${pruning.length} during it`);
    const noPrune = { events: quiet.length, ...latencyFigures(quiet) };
    const duringPrune = {
      events: pruning.length,
      ...latencyFigures(pruning),
      pruneSeconds: Number(((end - start) / 1000).toFixed(2)),
      pruneDeleted: deleted,
    };
    return {
      ratePerSecond: RATE,
      how: "the worker's own prune (WEBHOOK_LOG_RETENTION a day past the cycles' cutoff), watched in pg_stat_activity",
      noPrune,
      duringPrune,
      p99Ratio: ratio(duringPrune.p99Ms, noPrune.p99Ms),
      workerPeakRssMiB: worker.peakRssMiB(),
    };
  } finally {
    await watch.stop();
    await worker?.stop();
    await receiver.close();
  }
}

const env = await benchEnvironment();
try {
  for (let c = 0; c < COMMUNITIES; c++) await seedEndpoints(env.db, 1, 'http://127.0.0.1:9/retention');
  const seeded = performance.now();
  await insertAttempts(env.db, ATTEMPTS, 0, DAYS, 'seed');
  await env.db.query('VACUUM ANALYZE webhook_deliveries');
  const seedSeconds = (performance.now() - seeded) / 1000;

  const { first, cycles, retentionMs } = await pruneCycles(env);
  const growth = Number((cycles[CYCLES - 1].tableMiB / cycles[0].tableMiB).toFixed(3));
  const page = await deliveryLogPage(env);
  const latency = await latencyBesidePrune(env, retentionMs);
  console.log(
    JSON.stringify({
      benchmark: 'delivery-log-retention',
      date: new Date().toISOString().slice(0, 10),
      attempts: ATTEMPTS,
      communities: COMMUNITIES,
      seedSeconds: Number(seedSeconds.toFixed(1)),
      firstPrune: first,
      cycles,
      sizeAfterThirdToFirst: growth,
      deliveryLogPage: page,
      deliveryLatency: latency,
      loadAverage: (await import('node:os')).loadavg().map((l) => Number(l.toFixed(1))),
      targets:
        `one day's prune < ${TARGET_PRUNE_SECONDS} s, the size after three cycles within ${TARGET_GROWTH * 100}% of after one, ` +
        `the page's p99 < ${TARGET_PAGE_P99_MS} ms, a delivery's p99 during a day's prune <= ${TARGET_PRUNE_LATENCY_RATIO}x without`,
      pass:
        cycles.every((c) => c.seconds < TARGET_PRUNE_SECONDS) &&
        Math.abs(growth - 1) <= TARGET_GROWTH &&
        page.service.p99Ms < TARGET_PAGE_P99_MS &&
        latency.p99Ratio <= TARGET_PRUNE_LATENCY_RATIO,
    }),
  );
  // the line's ratio is the page's, to the floor's `best` read: the prune's figures have no floor and
  // stand beside their own targets (seconds, the size's growth, the latency beside a prune / without)
  record('delivery-log-retention', [
    {
      series: `${ATTEMPTS} attempts, ${COMMUNITIES} communities`,
      unit: 'req/s (autocannon) of the delivery log page',
      service: page.service.rps,
      floor: page.floor?.rps,
      ratio: page.rpsRatio,
      p50Ms: page.service.p50Ms,
      p99Ms: page.service.p99Ms,
      floorP99Ms: page.floor?.p99Ms,
      pageTarget: `p99 < ${TARGET_PAGE_P99_MS} ms`,
      attempts: ATTEMPTS,
      communities: COMMUNITIES,
      seedSeconds: Number(seedSeconds.toFixed(1)),
      firstPruneSeconds: first.seconds,
      pruneSeconds: cycles.map((c) => c.seconds),
      pruneTarget: `< ${TARGET_PRUNE_SECONDS} s a day`,
      sizeAfterThirdToFirst: growth,
      latencyP99Ms: { noPrune: latency.noPrune.p99Ms, duringPrune: latency.duringPrune.p99Ms },
      latencyP99Ratio: latency.p99Ratio,
      latencyTarget: `<= ${TARGET_PRUNE_LATENCY_RATIO}`,
    },
  ]);
} finally {
  await env.drop();
}
