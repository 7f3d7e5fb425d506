// Benchmark (a): sustained end-to-end delivery throughput of ONE worker process to a local receiver:
// events committed in the outbox → relayed → signed POST answered 200 → attempt recorded SUCCESS,
// side by side with the floor's "deliver" round (bare BullMQ + pg + undici, ../shared/bench-floor)
// run in the same invocation. Prints one JSON line: service, floor and their ratio, the worker's CPU
// per delivery and its peak RSS. Both rates are counted the floor's way, first completion to last (the
// service's from its first receipt, `firstReceiptMs` after the bench began to commit the events, to
// the last attempt recorded). Setup: see bench/lib/delivery-harness.mjs.
//
//   node bench/delivery-throughput.mjs   # BENCH_EVENTS (20000), BENCH_ENDPOINTS (10), BENCH_WORKERS (1)
//
// The events take BENCH_ENDPOINTS endpoints in turn (one per community, one delivery per event, as
// the floor's one job per event), all at the same receiver: with 10, the worker's jobs in flight
// (WORKER_CONCURRENCY) spread over ten caps of WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT, so the figure is the
// pipeline's. BENCH_ENDPOINTS=1 measures one endpoint held to its cap. BENCH_WORKERS runs that many
// worker processes side by side (the cost curve's 1, 2 and 3: bench/cost-curve.mjs); the floor is
// still one worker, so the ratio says what the extra processes buy on this machine.
//
//   BENCH_ORDERING=fifo BENCH_ENDPOINTS=1 BENCH_EVENTS=5000 node bench/delivery-throughput.mjs
//
// makes the endpoints FIFO (one delivery in flight, in commit order) and runs the floor's worker with
// one job at a time (CONCURRENCY=1) beside it; the target is then a pace of its own (FIFO_TARGET per
// second), printed with the floor's one-at-a-time pace and the ratio.
//
//   BENCH_TRACING=compare node bench/delivery-throughput.mjs
//
// runs the service twice after the floor: tracing off, then on (an OTLP/HTTP endpoint served by the
// bench, the always_on sampler, every event carrying a sampled traceparent as a traced API request's
// does, so every send is an attempt span); prints both and traced / untraced (target ≥ TRACED_TARGET).
//
// BENCH_RECORD=1 (or --record) appends the run to bench/results/delivery-throughput.jsonl (lib/record.mjs);
// without the floor (FLOOR_DIR missing) the service runs alone and its figures carry no ratio.
import { performance } from 'node:perf_hooks';
import { loadavg } from 'node:os';
import {
  benchEnvironment,
  countSucceeded,
  databaseCpu,
  databaseSampler,
  deliveryTableStats,
  insertEvents,
  seedEndpoints,
  startReceiver,
  startTraceSink,
  startWorker,
  until,
} from './lib/delivery-harness.mjs';
import { floorPresent, ratioIfFloor, runFloor } from './lib/floor.mjs';
import { record } from './lib/record.mjs';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 10);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 1);
const FIFO = process.env.BENCH_ORDERING === 'fifo';
/** Deliveries per second one FIFO endpoint reaches with a receiver answering in about a millisecond. */
const FIFO_TARGET = 300;
/** One endpoint held to its cap, and the pipeline over ten. */
const TARGET_RATIO = ENDPOINTS === 1 ? 0.7 : 0.85;
const TARGET_RSS_RATIO = 1.3;
const TRACING = process.env.BENCH_TRACING === 'compare';
/** Deliveries with tracing on, to the same service with it off (docs/operations.md#tracing). */
const TRACED_TARGET = 0.85;

/** Writes `count` events taking the communities in turn, 5,000 per transaction. */
async function insertSpread(db, communityIds, count, traced = false) {
  for (let i = 0; i < count; i += 5_000)
    await insertEvents(db, communityIds, Math.min(5_000, count - i), { traced });
}

/** The service's run; with `tracing` (a startTraceSink()), the workers export there and every event is traced. */
async function service(tracing = null) {
  const env = await benchEnvironment();
  const receiver = await startReceiver();
  const workers = [];
  const traced = tracing !== null;
  try {
    const communityIds = [];
    for (let n = 0; n < ENDPOINTS; n++)
      communityIds.push((await seedEndpoints(env.db, 1, receiver.url)).communityId);
    if (FIFO)
      await env.db.query(
        `UPDATE webhook_endpoints SET ordering = 'fifo' WHERE community_id = ANY($1::uuid[])`,
        [communityIds],
      );
    for (let n = 0; n < WORKERS; n++)
      workers.push(
        await startWorker({
          DATABASE_URL: env.databaseUrl,
          REDIS_KEY_PREFIX: env.prefix,
          ...(tracing ? tracing.env : {}),
        }),
      );
    const cpuMs = () => workers.reduce((sum, w) => sum + w.cpuMs(), 0);
    // warm-up: connections, JIT, prepared plans
    await insertSpread(env.db, communityIds, 500, traced);
    await until('the warm-up', async () => (await countSucceeded(env.db)) >= 500, 60_000);

    const cpuBefore = cpuMs();
    const pgCpu = databaseCpu(env.db);
    await pgCpu.start();
    const tableStats = deliveryTableStats(env.db);
    await tableStats.start();
    const sampler = databaseSampler(env.databaseUrl);
    await sampler.start();
    const started = performance.now();
    await insertSpread(env.db, communityIds, EVENTS, traced);
    // the receiver's count first (in this process, free), then the log: counting the log on every
    // poll took CPU from the machine the service shares with the floor's run
    await until('every delivery to arrive', async () => receiver.requests() >= EVENTS + 500, 600_000, 5);
    await until(
      'every delivery to be recorded',
      async () => (await countSucceeded(env.db)) >= EVENTS + 500,
      600_000,
      5,
    );
    const ended = performance.now();
    // counted as the floor counts its own rate, first completion to last: from the first receipt of
    // a measured event to the moment the last is recorded. The seconds before the first receipt
    // (the bench committing its first transaction of events, the relay's first batch) are printed beside it.
    const startedAt = performance.timeOrigin + started;
    let firstReceipt = Infinity;
    for (const at of receiver.firstSeen.values()) if (at >= startedAt && at < firstReceipt) firstReceipt = at;
    const seconds = (performance.timeOrigin + ended - firstReceipt) / 1000;
    const pgCpuMs = await pgCpu.stop();
    const table = await tableStats.stop();
    const pgSamples = await sampler.stop();
    if (pgSamples) console.error(pgSamples.join('\n'));
    return {
      deliveriesPerSecond: Math.round((EVENTS - 1) / seconds),
      seconds: Number(seconds.toFixed(2)),
      firstReceiptMs: Math.round(firstReceipt - startedAt),
      workers: WORKERS,
      workerCpuMsPerDelivery: Number(((cpuMs() - cpuBefore) / EVENTS).toFixed(3)),
      // the bench database's backends: the worker's statements and the bench's own inserts
      postgresCpuMsPerDelivery: Number((pgCpuMs / EVENTS).toFixed(3)),
      workerPeakRssMiB: Math.max(...workers.map((w) => w.peakRssMiB())),
      // webhook_deliveries: updates that were HOT (no index entry written) and index entries written
      webhookDeliveries: table,
      receiverRequests: receiver.requests(),
      ...(tracing ? { spansExported: tracing.spans() } : {}),
    };
  } finally {
    for (const worker of workers) await worker.stop();
    await receiver.close();
    await env.drop();
  }
}

const floor = floorPresent()
  ? await runFloor('floor-delivery.mjs', {
      ONLY: 'deliver',
      ROUNDS: '1',
      JOBS: String(EVENTS),
      // a FIFO endpoint has one delivery in flight: the floor's worker then takes one job at a time
      ...(FIFO ? { CONCURRENCY: '1' } : {}),
    })
  : null;
const measured = await service();
let tracedRun = null;
if (TRACING) {
  const sink = await startTraceSink();
  try {
    tracedRun = await service(sink);
  } finally {
    await sink.close();
  }
  if (!(tracedRun.spansExported > 0)) throw new Error('tracing on, yet no span reached the OTLP endpoint');
}
const floorFigures = floor && {
  deliveriesPerSecond: Math.round(floor.deliveriesPerSecond),
  workerPeakRssMiB: Math.round(floor.workerPeakRssMiB),
};
const r = ratioIfFloor(measured.deliveriesPerSecond, floorFigures?.deliveriesPerSecond);
const rss = ratioIfFloor(measured.workerPeakRssMiB, floorFigures?.workerPeakRssMiB);
const tracedToUntraced = tracedRun
  ? ratioIfFloor(tracedRun.deliveriesPerSecond, measured.deliveriesPerSecond)
  : undefined;
const target = FIFO
  ? `>= ${FIFO_TARGET} deliveries/s per FIFO endpoint (the floor: one job at a time)`
  : `ratio >= ${TARGET_RATIO}, worker peak RSS <= ${TARGET_RSS_RATIO}x the floor's`;
console.log(
  JSON.stringify({
    benchmark: 'delivery-throughput',
    date: new Date().toISOString().slice(0, 10),
    events: EVENTS,
    endpoints: ENDPOINTS,
    ordering: FIFO ? 'fifo' : 'unordered',
    service: measured,
    floor: floorFigures,
    ratio: r,
    peakRssRatio: rss,
    ...(tracedRun
      ? { traced: tracedRun, tracedToUntraced, tracedTarget: `traced / untraced >= ${TRACED_TARGET}` }
      : {}),
    loadAverage: loadavg().map((l) => Number(l.toFixed(1))),
    target,
    pass: FIFO
      ? measured.deliveriesPerSecond / ENDPOINTS >= FIFO_TARGET
      : r === undefined
        ? undefined
        : r >= TARGET_RATIO && rss <= TARGET_RSS_RATIO,
  }),
);
const series = FIFO ? 'one FIFO endpoint' : ENDPOINTS === 1 ? 'one endpoint' : `${ENDPOINTS} endpoints`;
record('delivery-throughput', [
  {
    series: WORKERS > 1 ? `${series}, ${WORKERS} workers` : series,
    unit: 'deliveries/s',
    events: EVENTS,
    service: measured.deliveriesPerSecond,
    floor: floorFigures?.deliveriesPerSecond,
    ratio: r,
    target: FIFO ? undefined : `>= ${TARGET_RATIO}`,
    workerCpuMsPerDelivery: measured.workerCpuMsPerDelivery,
    postgresCpuMsPerDelivery: measured.postgresCpuMsPerDelivery,
    peakRssMiB: measured.workerPeakRssMiB,
    floorPeakRssMiB: floorFigures?.workerPeakRssMiB,
    rssRatio: rss,
  },
  ...(tracedRun
    ? [
        {
          series: `${series}, tracing on`,
          unit: 'deliveries/s',
          service: tracedRun.deliveriesPerSecond,
          tracedToUntraced,
          target: `traced / untraced >= ${TRACED_TARGET}`,
          peakRssMiB: tracedRun.workerPeakRssMiB,
        },
      ]
    : []),
]);
