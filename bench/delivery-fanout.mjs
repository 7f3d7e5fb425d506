// Benchmark (c): one event fanned out to 1,000 endpoints of one community (each with its own
// secret) by one worker process: time from the event's commit to the last delivery received and
// to the last attempt recorded. The floor has no fan-out round: beside it, in the same invocation,
// runs the floor's deliver round with as many jobs as endpoints, and the ratio compares the time
// the floor takes to deliver that many jobs with the service's time to its last receipt. Below
// 1,000 endpoints the floor's round runs 1,000 jobs and its rate gives the time for as many as there
// are endpoints: given fewer (50 and 100 tried), the round ends by dropping its database while one
// of its clients is still connected, and exits 1. A larger round is the stricter floor: its start-up
// is spread over more jobs.
// Setup: see bench/lib/delivery-harness.mjs.
//
//   node bench/delivery-fanout.mjs   # BENCH_ENDPOINTS (1000)
//
// BENCH_RECORD=1 (or --record) appends the run to bench/results/delivery-fanout.jsonl (lib/record.mjs);
// without the floor (FLOOR_DIR missing) the service runs alone and its time carries no ratio.
//
//   BENCH_FILTERS=1 node bench/delivery-fanout.mjs   # BENCH_ENDPOINTS (10), BENCH_EVENTS (2000)
//
// measures the relay with content filters instead (no floor): 10 endpoints without a filter, then each
// with a 20-node filter every event matches, BENCH_EVENTS events each (bench/lib/relay-filters.mjs).
import { performance } from 'node:perf_hooks';
import {
  benchEnvironment,
  countSucceeded,
  insertEvents,
  seedEndpoints,
  startReceiver,
  startWorker,
  until,
} from './lib/delivery-harness.mjs';
import { floorPresent, ratioIfFloor, runFloor } from './lib/floor.mjs';
import { record } from './lib/record.mjs';
import { relayWithFilters } from './lib/relay-filters.mjs';

if (process.env.BENCH_FILTERS === '1') {
  await relayWithFilters();
  process.exit(0);
}

const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 1_000);

const FLOOR_JOBS = Math.max(ENDPOINTS, 1_000);
const floor = floorPresent()
  ? await runFloor('floor-delivery.mjs', { ONLY: 'deliver', ROUNDS: '1', JOBS: String(FLOOR_JOBS) })
  : null;
const floorMs = floor ? Math.round((ENDPOINTS / floor.deliveriesPerSecond) * 1000) : undefined;
const env = await benchEnvironment();
const receiver = await startReceiver();
let worker;
try {
  const { communityId } = await seedEndpoints(env.db, ENDPOINTS, receiver.url);
  worker = await startWorker({ DATABASE_URL: env.databaseUrl, REDIS_KEY_PREFIX: env.prefix });
  // warm-up on the same endpoints, so connections and plans exist as in steady operation
  await insertEvents(env.db, communityId, 1);
  await until('the warm-up fan-out', async () => (await countSucceeded(env.db)) >= ENDPOINTS, 120_000);

  const before = receiver.requests();
  const started = performance.now();
  await insertEvents(env.db, communityId, 1);
  let lastReceiptMs = 0;
  await until(
    'the last receipt',
    () => {
      if (receiver.requests() - before >= ENDPOINTS) lastReceiptMs = performance.now() - started;
      return lastReceiptMs > 0;
    },
    120_000,
    2,
  );
  await until(
    'the last attempt recorded',
    async () => (await countSucceeded(env.db)) >= 2 * ENDPOINTS,
    120_000,
    10,
  );
  const lastRecordedMs = performance.now() - started;
  const r = ratioIfFloor(floorMs, lastReceiptMs);
  console.log(
    JSON.stringify({
      benchmark: 'delivery-fanout',
      date: new Date().toISOString().slice(0, 10),
      endpoints: ENDPOINTS,
      service: {
        lastReceiptMs: Math.round(lastReceiptMs),
        lastAttemptRecordedMs: Math.round(lastRecordedMs),
        workerPeakRssMiB: worker.peakRssMiB(),
      },
      floor: floor && {
        deliverJobsMs: floorMs,
        deliveriesPerSecond: Math.round(floor.deliveriesPerSecond),
        jobs: FLOOR_JOBS,
      },
      ratio: r,
      loadAverage: (await import('node:os')).loadavg().map((l) => Number(l.toFixed(1))),
    }),
  );
  // the ratio is the floor's time over the service's: above 1, the service was faster
  record('delivery-fanout', [
    {
      series: `1 → ${ENDPOINTS} endpoints`,
      unit: 'ms to the last receipt',
      service: Math.round(lastReceiptMs),
      floor: floorMs,
      ratio: r,
      target: ENDPOINTS === 1_000 ? '>= 0.8' : undefined,
      lastAttemptRecordedMs: Math.round(lastRecordedMs),
      peakRssMiB: worker.peakRssMiB(),
    },
  ]);
} finally {
  await worker?.stop();
  await receiver.close();
  await env.drop();
}
