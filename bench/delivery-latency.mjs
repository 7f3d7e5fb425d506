// Benchmark (b): commit-to-receipt latency at a steady 200 events/s with one worker process:
// clock read just before the event's INSERT (autocommit) → the receiver gets the signed POST, side
// by side with the floor's latency round (enqueue → receipt at the same rate, ../shared/bench-floor)
// run in the same invocation. Target: p95 ≤ 3× the floor's p95. Setup: see bench/lib/delivery-harness.mjs.
//
//   node bench/delivery-latency.mjs   # BENCH_RATE (200), BENCH_SECONDS (15)
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
const WARMUP_SECONDS = 3;
const TARGET_P95_RATIO = 3;

const floor = await runFloor('floor-delivery.mjs', {
  ONLY: 'latency',
  ROUNDS: '1',
  RATE: String(RATE),
  RATE_SECONDS: String(SECONDS),
});
const env = await benchEnvironment();
const receiver = await startReceiver();
let worker;
try {
  const { communityId } = await seedEndpoints(env.db, 1, receiver.url);
  worker = await startWorker({ DATABASE_URL: env.databaseUrl, REDIS_KEY_PREFIX: env.prefix });
  const warm = await steadyStream(env.db, communityId, { rate: RATE, seconds: WARMUP_SECONDS });
  await until('the warm-up deliveries', async () => (await countSucceeded(env.db)) >= warm.size, 60_000);

  const sentAt = await steadyStream(env.db, communityId, { rate: RATE, seconds: SECONDS });
  await until('every delivery', () => [...sentAt.keys()].every((id) => receiver.firstSeen.has(id)), 120_000);
  const latencies = [...sentAt].map(([id, at]) => receiver.firstSeen.get(id) - at).sort((a, b) => a - b);
  const service = { ...latencyFigures(latencies), workerPeakRssMiB: worker.peakRssMiB() };
  const p95Ratio = ratio(service.p95Ms, floor.p95Ms);
  console.log(
    JSON.stringify({
      benchmark: 'delivery-latency',
      date: new Date().toISOString().slice(0, 10),
      ratePerSecond: RATE,
      events: latencies.length,
      service,
      floor: { p50Ms: floor.p50Ms, p95Ms: floor.p95Ms, p99Ms: floor.p99Ms },
      p95Ratio,
      loadAverage: (await import('node:os')).loadavg().map((l) => Number(l.toFixed(1))),
      target: `p95 <= ${TARGET_P95_RATIO}x the floor's`,
      pass: p95Ratio <= TARGET_P95_RATIO,
    }),
  );
} finally {
  await worker?.stop();
  await receiver.close();
  await env.drop();
}
