// Benchmark (b): commit-to-receipt latency at a steady 200 events/s with one worker process:
// clock read just before the event's INSERT (autocommit) → the receiver gets the signed POST, side
// by side with the floor's latency round (enqueue → receipt at the same rate, ../shared/bench-floor).
// BENCH_LATENCY_ROUNDS (3) rounds, each the floor's round and then the service's, in this invocation;
// the figure is the median of the rounds' ratios. Target: p50 and p95 ≤ 2× the floor's.
// Setup: see bench/lib/delivery-harness.mjs.
//
//   node bench/delivery-latency.mjs   # BENCH_RATE (200), BENCH_SECONDS (15), BENCH_LATENCY_ROUNDS (3)
//
// BENCH_RECORD=1 (or --record) appends the run to bench/results/delivery-latency.jsonl (lib/record.mjs);
// without the floor (FLOOR_DIR missing) only the service's rounds run, and carry no ratio.
import { loadavg } from 'node:os';
import {
  benchEnvironment,
  countSucceeded,
  latencyFigures,
  seedEndpoints,
  startReceiver,
  startWorker,
  steadyStream,
  until,
} from './lib/delivery-harness.mjs';
import { floorPresent, ratioIfFloor, runFloor } from './lib/floor.mjs';
import { record } from './lib/record.mjs';

const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const ROUNDS = Number(process.env.BENCH_LATENCY_ROUNDS ?? 3);
const WARMUP_SECONDS = 3;
const TARGET_RATIO = 2;

const withFloor = floorPresent();
const floorRound = async () =>
  withFloor
    ? runFloor('floor-delivery.mjs', {
        ONLY: 'latency',
        ROUNDS: '1',
        RATE: String(RATE),
        RATE_SECONDS: String(SECONDS),
      })
    : null;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

// the first floor round runs before anything of the service exists; the later ones beside its idle worker
let floor = await floorRound();
const env = await benchEnvironment();
const receiver = await startReceiver();
let worker;
try {
  const { communityId } = await seedEndpoints(env.db, 1, receiver.url);
  worker = await startWorker({ DATABASE_URL: env.databaseUrl, REDIS_KEY_PREFIX: env.prefix });
  const warm = await steadyStream(env.db, communityId, { rate: RATE, seconds: WARMUP_SECONDS });
  await until('the warm-up deliveries', async () => (await countSucceeded(env.db)) >= warm.size, 60_000);

  const rounds = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (round > 0) floor = await floorRound();
    const sentAt = await steadyStream(env.db, communityId, { rate: RATE, seconds: SECONDS });
    await until(
      'every delivery',
      () => [...sentAt.keys()].every((id) => receiver.firstSeen.has(id)),
      120_000,
    );
    const latencies = [...sentAt].map(([id, at]) => receiver.firstSeen.get(id) - at).sort((a, b) => a - b);
    const service = latencyFigures(latencies);
    rounds.push({
      events: latencies.length,
      service,
      floor: floor && { p50Ms: floor.p50Ms, p95Ms: floor.p95Ms, p99Ms: floor.p99Ms },
      p50Ratio: ratioIfFloor(service.p50Ms, floor?.p50Ms),
      p95Ratio: ratioIfFloor(service.p95Ms, floor?.p95Ms),
      loadAverage: loadavg().map((l) => Number(l.toFixed(1))),
    });
  }
  const p50Ratio = withFloor ? median(rounds.map((r) => r.p50Ratio)) : undefined;
  const p95Ratio = withFloor ? median(rounds.map((r) => r.p95Ratio)) : undefined;
  const medianOf = (side, figure) =>
    withFloor || side === 'service' ? median(rounds.map((r) => r[side][figure])) : undefined;
  console.log(
    JSON.stringify({
      benchmark: 'delivery-latency',
      date: new Date().toISOString().slice(0, 10),
      ratePerSecond: RATE,
      rounds,
      p50Ratio,
      p95Ratio,
      workerPeakRssMiB: worker.peakRssMiB(),
      target: `p50 and p95 <= ${TARGET_RATIO}x the floor's, median of ${ROUNDS} rounds`,
      pass: withFloor ? p50Ratio <= TARGET_RATIO && p95Ratio <= TARGET_RATIO : undefined,
    }),
  );
  // the line's ratio is the p50's (the median of the rounds' ratios); the p95's is beside it
  record('delivery-latency', [
    {
      series: 'commit → receipt, p50',
      unit: 'ms, median of the rounds',
      ratePerSecond: RATE,
      rounds: ROUNDS,
      p50Ms: medianOf('service', 'p50Ms'),
      p95Ms: medianOf('service', 'p95Ms'),
      p99Ms: medianOf('service', 'p99Ms'),
      floorP50Ms: medianOf('floor', 'p50Ms'),
      floorP95Ms: medianOf('floor', 'p95Ms'),
      floorP99Ms: medianOf('floor', 'p99Ms'),
      ratio: p50Ratio,
      p95Ratio,
      target: `<= ${TARGET_RATIO}`,
      peakRssMiB: worker.peakRssMiB(),
    },
  ]);
} finally {
  await worker?.stop();
  await receiver.close();
  await env.drop();
}
