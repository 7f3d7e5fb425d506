// Benchmark (b): commit-to-receipt latency at a steady 200 events/s with one worker process:
// clock read just before the event's INSERT (autocommit) → the receiver gets the signed POST, side
// by side with the floor's latency round (enqueue → receipt at the same rate, ../shared/bench-floor).
// BENCH_LATENCY_ROUNDS (3) rounds, each the floor's round and then the service's, in this invocation;
// the figure is the median of the rounds' ratios. Target: p50 and p95 ≤ 2× the floor's.
// Setup: see bench/lib/delivery-harness.mjs.
//
//   node bench/delivery-latency.mjs   # BENCH_RATE (200), BENCH_SECONDS (15), BENCH_LATENCY_ROUNDS (3)
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
import { ratio, runFloor } from './lib/floor.mjs';

const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const ROUNDS = Number(process.env.BENCH_LATENCY_ROUNDS ?? 3);
const WARMUP_SECONDS = 3;
const TARGET_RATIO = 2;

const floorRound = () =>
  runFloor('floor-delivery.mjs', {
    ONLY: 'latency',
    ROUNDS: '1',
    RATE: String(RATE),
    RATE_SECONDS: String(SECONDS),
  });
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
      floor: { p50Ms: floor.p50Ms, p95Ms: floor.p95Ms, p99Ms: floor.p99Ms },
      p50Ratio: ratio(service.p50Ms, floor.p50Ms),
      p95Ratio: ratio(service.p95Ms, floor.p95Ms),
      loadAverage: loadavg().map((l) => Number(l.toFixed(1))),
    });
  }
  const p50Ratio = median(rounds.map((r) => r.p50Ratio));
  const p95Ratio = median(rounds.map((r) => r.p95Ratio));
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
      pass: p50Ratio <= TARGET_RATIO && p95Ratio <= TARGET_RATIO,
    }),
  );
} finally {
  await worker?.stop();
  await receiver.close();
  await env.drop();
}
