// Benchmark (b): commit-to-receipt latency at a steady 200 events/s with one worker process:
// clock read just before the event's INSERT (autocommit) → the receiver gets the signed POST.
// Target p95 < 100 ms. Setup: see bench/delivery-harness.mjs.
//
//   node bench/delivery-latency.mjs   # BENCH_RATE (200), BENCH_SECONDS (15)
import { performance } from 'node:perf_hooks';
import {
  benchEnvironment,
  countSucceeded,
  insertEvents,
  percentile,
  seedEndpoints,
  startReceiver,
  startWorker,
  until,
} from './delivery-harness.mjs';

const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const WARMUP_SECONDS = 3;
const TARGET_P95_MS = 100;

/** Writes events at RATE per second for `seconds`; returns messageId → wall-clock ms before its INSERT. */
async function steadyStream(db, communityId, seconds) {
  const sentAt = new Map();
  const pending = [];
  const interval = 1000 / RATE;
  const start = performance.now();
  for (let n = 0; n < seconds * RATE; n++) {
    const due = start + n * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const at = performance.timeOrigin + performance.now();
    pending.push(insertEvents(db, communityId, 1).then(([id]) => sentAt.set(id, at)));
  }
  await Promise.all(pending);
  return sentAt;
}

const env = await benchEnvironment();
const receiver = await startReceiver();
let worker;
try {
  const { communityId } = await seedEndpoints(env.db, 1, receiver.url);
  worker = await startWorker({ DATABASE_URL: env.databaseUrl, REDIS_KEY_PREFIX: env.prefix });
  const warm = await steadyStream(env.db, communityId, WARMUP_SECONDS);
  await until('the warm-up deliveries', async () => (await countSucceeded(env.db)) >= warm.size, 60_000);

  const sentAt = await steadyStream(env.db, communityId, SECONDS);
  await until('every delivery', () => [...sentAt.keys()].every((id) => receiver.firstSeen.has(id)), 120_000);
  const latencies = [...sentAt].map(([id, at]) => receiver.firstSeen.get(id) - at).sort((a, b) => a - b);
  const p95 = percentile(latencies, 95);
  console.log(
    JSON.stringify({
      benchmark: 'delivery-latency',
      ratePerSecond: RATE,
      events: latencies.length,
      p50Ms: Number(percentile(latencies, 50).toFixed(1)),
      p95Ms: Number(p95.toFixed(1)),
      p99Ms: Number(percentile(latencies, 99).toFixed(1)),
      maxMs: Number(latencies[latencies.length - 1].toFixed(1)),
      workerPeakRssMiB: worker.peakRssMiB(),
      loadAverage: (await import('node:os')).loadavg().map((l) => Number(l.toFixed(1))),
      target: `p95 < ${TARGET_P95_MS} ms`,
      pass: p95 < TARGET_P95_MS,
    }),
  );
} finally {
  await worker?.stop();
  await receiver.close();
  await env.drop();
}
