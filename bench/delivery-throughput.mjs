// Benchmark (a): sustained end-to-end delivery throughput of ONE worker process to a local receiver:
// events committed in the outbox → relayed → signed POST answered 200 → attempt recorded SUCCESS.
// Target ≥ 1,000 deliveries/s. Reports the worker's peak RSS. Setup: see bench/delivery-harness.mjs.
//
//   node bench/delivery-throughput.mjs   # BENCH_EVENTS (20000)
import { performance } from 'node:perf_hooks';
import {
  benchEnvironment,
  countSucceeded,
  insertEvents,
  seedEndpoints,
  startReceiver,
  startWorker,
  until,
} from './delivery-harness.mjs';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
const TARGET_PER_S = 1_000;

const env = await benchEnvironment();
const receiver = await startReceiver();
let worker;
try {
  const { communityId } = await seedEndpoints(env.db, 1, receiver.url);
  worker = await startWorker({ DATABASE_URL: env.databaseUrl, REDIS_KEY_PREFIX: env.prefix });
  // warm-up: connections, JIT, prepared plans
  await insertEvents(env.db, communityId, 500);
  await until('the warm-up', async () => (await countSucceeded(env.db)) >= 500, 60_000);

  const cpuBefore = worker.cpuMs();
  const started = performance.now();
  for (let i = 0; i < EVENTS; i += 5_000)
    await insertEvents(env.db, communityId, Math.min(5_000, EVENTS - i));
  await until(
    'every delivery to be recorded',
    async () => (await countSucceeded(env.db)) >= EVENTS + 500,
    600_000,
    50,
  );
  const seconds = (performance.now() - started) / 1000;
  const perSecond = Math.round(EVENTS / seconds);
  console.log(
    JSON.stringify({
      benchmark: 'delivery-throughput',
      events: EVENTS,
      seconds: Number(seconds.toFixed(2)),
      deliveriesPerSecond: perSecond,
      workerCpuMsPerDelivery: Number(((worker.cpuMs() - cpuBefore) / EVENTS).toFixed(3)),
      workerPeakRssMiB: worker.peakRssMiB(),
      loadAverage: (await import('node:os')).loadavg().map((l) => Number(l.toFixed(1))),
      receiverRequests: receiver.requests(),
      target: `>= ${TARGET_PER_S}/s`,
      pass: perSecond >= TARGET_PER_S,
    }),
  );
} finally {
  await worker?.stop();
  await receiver.close();
  await env.drop();
}
