// The platform benchmark: the whole service on one machine, two APIs and two workers as production runs
// them, loaded the way Hookdeck Outpost's published load-test method describes
// (docs/benchmarks.md#the-method): BENCH_EVENTS (100,000) events raised through the API by 10 publishers at a
// fixed total rate of BENCH_RATE (1,000) per second, each to one of 100 endpoints on local receivers
// (one port each), of which 10 answer after 2 s and 5 answer 500. A second run sends the same load to
// 100 healthy endpoints: the healthy endpoints' p99 in the first, over theirs in the second, is the
// isolation ratio (what slow and failing neighbours cost the others). The floor's `deliver` round
// (../shared/bench-floor, FLOOR_DIR) runs in the same invocation for the throughput ratio.
//
//   npm run build && npm run bench:platform            # BENCH_RECORD=1 appends bench/results/platform.jsonl
//   BENCH_EVENTS=20000 BENCH_RATE=500 npm run bench:platform   # a shorter run
//
// Prints one JSON line: events/s accepted, deliveries/s, commit → receipt p50/p95/p99 of the healthy
// endpoints in both runs and their ratio, CPU seconds per 1,000 deliveries and peak RSS of each process,
// and the database's growth per 1,000 deliveries.
import {
  benchEnvironment,
  databaseCpu,
  latencyFigures,
  startWorker,
  until,
} from './lib/delivery-harness.mjs';
import { floorPresent, ratioIfFloor, runFloor } from './lib/floor.mjs';
import {
  cpuMsOf,
  peakRssOf,
  publish,
  seedPlatform,
  startPlatformApi,
  startPlatformReceiver,
} from './lib/platform-rig.mjs';
import { machine, record } from './lib/record.mjs';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const RATE = Number(process.env.BENCH_RATE ?? 1_000);
const PUBLISHERS = 10;
const ENDPOINTS = 100;
const SLOW = 10;
const FAILING = 5;
const SLOW_MS = 2_000;
const WARM_UP_PER_ENDPOINT = 4;
const API_PORT = Number(process.env.BENCH_PORT ?? 3600);
/** Healthy endpoints' p99 beside slow and failing neighbours, over the same without them. */
const ISOLATION_TARGET = 1.2;

/** The kinds of the hundred receivers: the first SLOW slow, the next FAILING failing, the rest healthy. */
function kinds(withNeighbours) {
  return Array.from({ length: ENDPOINTS }, (_, i) =>
    !withNeighbours ? 'healthy' : i < SLOW ? 'slow' : i < SLOW + FAILING ? 'failing' : 'healthy',
  );
}

async function databaseBytes(db) {
  const { rows } = await db.query('SELECT pg_database_size(current_database())::bigint AS bytes');
  return Number(rows[0].bytes);
}

/** One run of the service under the load; `withNeighbours` false makes all hundred receivers healthy. */
async function run(withNeighbours) {
  const env = await benchEnvironment();
  const receivers = [];
  const processes = [];
  try {
    for (const kind of kinds(withNeighbours)) receivers.push(await startPlatformReceiver(kind, SLOW_MS));
    const destinations = await seedPlatform(env.db, receivers);
    const shared = {
      DATABASE_URL: env.databaseUrl,
      REDIS_KEY_PREFIX: env.prefix,
    };
    const apis = [await startPlatformApi(API_PORT, shared), await startPlatformApi(API_PORT + 1, shared)];
    const workers = [await startWorker(shared), await startWorker(shared)];
    processes.push(
      ...apis.map((p, i) => ({ name: `api-${i + 1}`, ...p })),
      ...workers.map((p, i) => ({ name: `worker-${i + 1}`, ...p })),
    );
    const healthy = destinations.filter((d) => d.receiver.kind === 'healthy');
    const delivered = () => healthy.reduce((sum, d) => sum + d.receiver.receipts.size, 0);

    // warm-up: connections, JIT, prepared plans; then the receipts so far are forgotten
    // (every warm-up event is received before the clear: WARM_UP_PER_ENDPOINT to each endpoint)
    await publish({
      destinations,
      apis,
      publishers: PUBLISHERS,
      rate: 200,
      events: WARM_UP_PER_ENDPOINT * ENDPOINTS,
    });
    await until(
      'the warm-up deliveries',
      async () => delivered() >= healthy.length * WARM_UP_PER_ENDPOINT,
      300_000,
      50,
    );
    for (const r of receivers) r.receipts.clear();

    const cpuBefore = new Map(processes.map((p) => [p.name, cpuMsOf(p.pid)]));
    const pgCpu = databaseCpu(env.db);
    await pgCpu.start();
    const bytesBefore = await databaseBytes(env.db);
    const published = await publish({
      destinations,
      apis,
      publishers: PUBLISHERS,
      rate: RATE,
      events: EVENTS,
    });
    const expected = Math.round((published.accepted * healthy.length) / ENDPOINTS);
    // every accepted event of a healthy endpoint (each endpoint gets an equal share) has arrived
    await until("the healthy endpoints' deliveries", async () => delivered() >= expected, 900_000, 100);
    const healthyReceipts = healthy.flatMap((d) => [...d.receiver.receipts.values()]);
    const first = Math.min(...healthyReceipts.map((r) => r.at));
    const last = Math.max(...healthyReceipts.map((r) => r.at));
    const slowDelivered = destinations
      .filter((d) => d.receiver.kind === 'slow')
      .reduce((sum, d) => sum + d.receiver.receipts.size, 0);
    const deliveries = healthyReceipts.length + slowDelivered;
    const pgCpuMs = await pgCpu.stop();
    const bytesAfter = await databaseBytes(env.db);
    const perThousand = (value) => Number(((value * 1000) / deliveries).toFixed(3));
    return {
      eventsAccepted: published.accepted,
      eventsRefused: published.refused,
      eventsPerSecond: Math.round(published.accepted / published.seconds),
      healthyDeliveries: healthyReceipts.length,
      slowDeliveries: slowDelivered,
      failingRequests: receivers.filter((r) => r.kind === 'failing').reduce((s, r) => s + r.requests(), 0),
      deliveriesPerSecond: Math.round((healthyReceipts.length - 1) / ((last - first) / 1000)),
      healthyLatency: latencyFigures(healthyReceipts.map((r) => r.latencyMs).sort((a, b) => a - b)),
      cpuSecondsPer1000Deliveries: {
        ...Object.fromEntries(
          processes.map((p) => [p.name, perThousand((cpuMsOf(p.pid) - cpuBefore.get(p.name)) / 1000)]),
        ),
        postgres: perThousand(pgCpuMs / 1000),
      },
      peakRssMiB: Object.fromEntries(processes.map((p) => [p.name, peakRssOf(p.pid)])),
      databaseKiBPer1000Deliveries: Math.round(perThousand((bytesAfter - bytesBefore) / 1024)),
    };
  } finally {
    for (const p of processes) await p.stop();
    for (const r of receivers) await r.close();
    await env.drop();
  }
}

const floor = floorPresent()
  ? await runFloor('floor-delivery.mjs', {
      ONLY: 'deliver',
      ROUNDS: '1',
      JOBS: String(Math.min(EVENTS, 50_000)),
    })
  : null;
const withNeighbours = await run(true);
const alone = await run(false);
const throughputRatio = ratioIfFloor(withNeighbours.deliveriesPerSecond, floor?.deliveriesPerSecond);
const isolation = Number((withNeighbours.healthyLatency.p99Ms / alone.healthyLatency.p99Ms).toFixed(2));
const result = {
  benchmark: 'platform',
  date: new Date().toISOString().slice(0, 10),
  machine: machine(),
  events: EVENTS,
  rate: RATE,
  publishers: PUBLISHERS,
  endpoints: { total: ENDPOINTS, slow: SLOW, failing: FAILING, slowMs: SLOW_MS },
  withNeighbours,
  alone,
  floorDeliveriesPerSecond: floor ? Math.round(floor.deliveriesPerSecond) : undefined,
  throughputRatio,
  isolation,
  isolationTarget: `healthy p99 with neighbours / without <= ${ISOLATION_TARGET}`,
  pass: isolation <= ISOLATION_TARGET && withNeighbours.eventsRefused === 0,
};
console.log(JSON.stringify(result));
record('platform', [
  {
    series: 'deliveries/s to the floor (rate-bound: the floor is unbound)',
    unit: 'deliveries/s',
    events: EVENTS,
    rate: RATE,
    service: withNeighbours.deliveriesPerSecond,
    floor: result.floorDeliveriesPerSecond,
    ratio: throughputRatio,
    eventsPerSecond: withNeighbours.eventsPerSecond,
    ...withNeighbours.healthyLatency,
    cpuSecondsPer1000Deliveries: withNeighbours.cpuSecondsPer1000Deliveries,
    peakRssMiB: withNeighbours.peakRssMiB,
    databaseKiBPer1000Deliveries: withNeighbours.databaseKiBPer1000Deliveries,
  },
  {
    series: 'isolation: healthy p99 with / without slow and failing neighbours',
    unit: 'ratio of p99',
    events: EVENTS,
    rate: RATE,
    service: withNeighbours.healthyLatency.p99Ms,
    floor: alone.healthyLatency.p99Ms,
    ratio: isolation,
    target: `<= ${ISOLATION_TARGET}`,
  },
]);
