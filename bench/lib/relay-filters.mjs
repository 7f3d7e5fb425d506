// The relay with content filters (docs/api.md#content-filters), the BENCH_FILTERS=1 mode of
// bench/delivery-fanout.mjs: one community's BENCH_ENDPOINTS (10) endpoints, then BENCH_EVENTS (2000)
// events committed at once, relayed and delivered by one worker; twice, in fresh databases: the
// endpoints without a filter, then each with the same 20-node filter that every event matches (so
// both runs relay and deliver the same attempts, and what differs is the filters' cost: the
// statement that leaves events undecided, the worker's decisions, the statement that writes them).
// Prints one JSON line with both runs, filtered / unfiltered ratios, and the time of one decision (the
// compiled filter over one body, in the bench's own process).
import { performance } from 'node:perf_hooks';
import { loadavg } from 'node:os';
import {
  benchEnvironment,
  compiled,
  countSucceeded,
  databaseCpu,
  insertEvents,
  seedEndpoints,
  startReceiver,
  startWorker,
  until,
} from './delivery-harness.mjs';

/** 20 nodes (keys), every operator kind, matching every event insertEvents writes. */
export const TWENTY_NODE_FILTER = {
  type: { $in: ['tweet.created', 'tweet.updated'] },
  timestamp: { $gte: '2020-01-01T00:00:00Z', $lt: '2100-01-01' },
  data: {
    tweet: {
      content: { $startsWith: 'x', $exists: true },
      likeCount: { $gte: 0, $lt: 1000 },
      authorId: { $nin: ['00000000-0000-0000-0000-000000000000'] },
      $or: [{ id: { $exists: true } }, { communityId: { $exists: true } }],
    },
  },
};

/** Keys of a filter, the values of $in and $nin lists not counted (the service's node count). */
function nodes(value) {
  if (Array.isArray(value)) return value.reduce((sum, item) => sum + nodes(item), 0);
  if (value === null || typeof value !== 'object') return 0;
  return Object.entries(value).reduce(
    (sum, [key, child]) => sum + 1 + (key === '$in' || key === '$nin' ? 0 : nodes(child)),
    0,
  );
}

const WARM_UP_EVENTS = 200;

async function run(events, endpoints, filter) {
  const env = await benchEnvironment();
  const receiver = await startReceiver();
  let worker;
  try {
    const { communityId } = await seedEndpoints(env.db, endpoints, receiver.url);
    if (filter)
      await env.db.query(`UPDATE webhook_endpoints SET filter = $1 WHERE community_id = $2`, [
        JSON.stringify(filter),
        communityId,
      ]);
    worker = await startWorker({ DATABASE_URL: env.databaseUrl, REDIS_KEY_PREFIX: env.prefix });
    // warm-up: connections, JIT, prepared plans, the compiled filters
    await insertEvents(env.db, communityId, WARM_UP_EVENTS);
    await until(
      'the warm-up',
      async () => (await countSucceeded(env.db)) >= WARM_UP_EVENTS * endpoints,
      120_000,
    );

    const cpuBefore = worker.cpuMs();
    const pgCpu = databaseCpu(env.db);
    await pgCpu.start();
    const started = performance.now();
    const ids = [];
    for (let n = 0; n < events; n += 5_000)
      ids.push(...(await insertEvents(env.db, communityId, Math.min(5_000, events - n))));
    const deliveries = (events + WARM_UP_EVENTS) * endpoints;
    await until('every delivery', () => receiver.requests() >= deliveries, 600_000, 5);
    const lastReceiptMs = performance.now() - started;
    await until(
      'every attempt recorded',
      async () => (await countSucceeded(env.db)) >= deliveries,
      600_000,
      10,
    );
    const workerCpuMs = worker.cpuMs() - cpuBefore;
    const pgCpuMs = await pgCpu.stop();
    // the database's own clock: the events' transaction began at created_at, each was relayed at relayed_at
    const {
      rows: [relay],
    } = await env.db.query(
      `SELECT extract(epoch FROM max(relayed_at) - min(relayed_at)) * 1000 AS first_to_last_ms,
              extract(epoch FROM max(relayed_at) - min(created_at)) * 1000 AS written_to_last_ms
         FROM outbox_events WHERE message_id = ANY($1)`,
      [ids],
    );
    return {
      relayFirstToLastMs: Math.round(relay.first_to_last_ms),
      eventsWrittenToLastRelayedMs: Math.round(relay.written_to_last_ms),
      lastReceiptMs: Math.round(lastReceiptMs),
      workerCpuMsPerEvent: Number((workerCpuMs / events).toFixed(3)),
      postgresCpuMsPerEvent: Number((pgCpuMs / events).toFixed(3)),
      workerPeakRssMiB: worker.peakRssMiB(),
    };
  } finally {
    await worker?.stop();
    await receiver.close();
    await env.drop();
  }
}

export async function relayWithFilters() {
  const events = Number(process.env.BENCH_EVENTS ?? 2_000);
  const endpoints = Number(process.env.BENCH_ENDPOINTS ?? 10);
  // the filter as the service reads it: 20 nodes, valid, and matching a bench event
  const { compileFilter } = compiled('modules/webhooks/core/filter/event-filter.js');
  const matches = compileFilter(TWENTY_NODE_FILTER);
  const sample = {
    type: 'tweet.created',
    timestamp: new Date().toISOString(),
    data: { tweet: { id: 'a', communityId: 'b', authorId: 'c', content: 'x'.repeat(280), likeCount: 0 } },
  };
  if (nodes(TWENTY_NODE_FILTER) !== 20 || !matches(sample))
    throw new Error('the bench filter must have 20 nodes and match every bench event');

  // one decision alone, in this process: the matcher over the sample body, after a warm-up
  const decisions = 200_000;
  for (let n = 0; n < decisions; n++) matches(sample);
  const matchStarted = performance.now();
  for (let n = 0; n < decisions; n++) matches(sample);
  const decisionMicroseconds = Number((((performance.now() - matchStarted) * 1000) / decisions).toFixed(3));

  const unfiltered = await run(events, endpoints, null);
  const filtered = await run(events, endpoints, TWENTY_NODE_FILTER);
  const ratio = (a, b) => (b > 0 ? Number((a / b).toFixed(2)) : null);
  console.log(
    JSON.stringify({
      benchmark: 'delivery-fanout (relay with content filters)',
      date: new Date().toISOString().slice(0, 10),
      events,
      endpoints,
      filterNodes: 20,
      decisionMicroseconds,
      unfiltered,
      filtered,
      filteredToUnfiltered: {
        relayFirstToLast: ratio(filtered.relayFirstToLastMs, unfiltered.relayFirstToLastMs),
        lastReceipt: ratio(filtered.lastReceiptMs, unfiltered.lastReceiptMs),
        workerCpuPerEvent: ratio(filtered.workerCpuMsPerEvent, unfiltered.workerCpuMsPerEvent),
        postgresCpuPerEvent: ratio(filtered.postgresCpuMsPerEvent, unfiltered.postgresCpuMsPerEvent),
      },
      loadAverage: loadavg().map((l) => Number(l.toFixed(1))),
    }),
  );
}
