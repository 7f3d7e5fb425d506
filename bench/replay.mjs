// Bulk replay (docs/api.md#bulk-replay): the dry run's count over BENCH_REPLAY_ATTEMPTS (10^6) failed
// attempts, and how fast a worker queues a replay of BENCH_REPLAY_QUEUE (100,000) of them. The attempts are
// seeded in SQL (events an hour old, one failed attempt on each of 3 endpoints). The dry run is the compiled
// store's statement (countByEndpointStatement from dist/, as WebhookReplaysStore.countByEndpoint runs it),
// timed BENCH_REPLAY_COUNTS (5) times in turn with the former one (the batches' NOT EXISTS selection, counted); the queue rate is the replay row's queued / (finished_at - created_at),
// the real worker from dist/ taking it in WEBHOOK_REPLAY_BATCH batches with no cap on waiting attempts (so
// the figure is the queuing's, not the receiver's), while it sends them too. Neither has a floor route: the
// floor's `deliver` round (as many jobs as queued) runs first, and its jobs/s is printed beside the queue rate.
//
//   npm run build && node bench/replay.mjs   # BENCH_RECORD=1 appends to bench/results/replay.jsonl
//
// Targets: the dry run < 1 s, the replay queues >= 5,000 messages/s.
import { performance } from 'node:perf_hooks';
import { loadavg } from 'node:os';
import {
  benchEnvironment,
  compiled,
  seedEndpoints,
  startReceiver,
  startWorker,
  until,
} from './lib/delivery-harness.mjs';
import { floorPresent, ratioIfFloor, runFloor } from './lib/floor.mjs';
import { record } from './lib/record.mjs';

const ATTEMPTS = Number(process.env.BENCH_REPLAY_ATTEMPTS ?? 1_000_000);
const QUEUE = Math.min(Number(process.env.BENCH_REPLAY_QUEUE ?? 100_000), ATTEMPTS);
const COUNTS = Number(process.env.BENCH_REPLAY_COUNTS ?? 5);
const ENDPOINTS = 3;
const MESSAGES = Math.ceil(ATTEMPTS / ENDPOINTS);
const HOUR_MS = 3600_000;

const floor = floorPresent()
  ? await runFloor('floor-delivery.mjs', {
      ONLY: 'deliver',
      ROUNDS: '1',
      JOBS: String(Math.min(QUEUE, 50_000)),
    })
  : null;
const env = await benchEnvironment();
const receiver = await startReceiver();
let worker;
try {
  const { communityId, endpointIds } = await seedEndpoints(env.db, ENDPOINTS, receiver.url);
  // the events spread over an hour that ended a minute ago, in outbox order
  const base = new Date(Date.now() - HOUR_MS - 60_000);
  const seedStarted = performance.now();
  await env.db.query(
    `INSERT INTO outbox_events (community_id, message_id, event_type, payload, created_at, relayed_at)
     SELECT $1::uuid, 'msg_bench' || lpad(i::text, 9, '0'), 'tweet.created',
            jsonb_build_object('id', 'msg_bench' || lpad(i::text, 9, '0'), 'type', 'tweet.created',
                               'timestamp', $2::timestamptz + i * ($3::float8 * interval '1 ms'),
                               'data', jsonb_build_object('n', i)),
            $2::timestamptz + i * ($3::float8 * interval '1 ms'), $2::timestamptz + i * ($3::float8 * interval '1 ms')
       FROM generate_series(1, $4::int) i`,
    [communityId, base, HOUR_MS / MESSAGES, MESSAGES],
  );
  await env.db.query(
    `INSERT INTO webhook_deliveries
       (id, community_id, endpoint_id, message_id, event_type, attempt, status, response_status, created_at, updated_at)
     SELECT gen_random_uuid(), o.community_id, e, o.message_id, 'tweet.created', 1, 'FAILED', 503, o.created_at, o.created_at
       FROM outbox_events o, unnest($1::uuid[]) e
      WHERE o.community_id = $2::uuid`,
    [endpointIds, communityId],
  );
  await env.db.query('VACUUM ANALYZE outbox_events, webhook_deliveries');
  const seedSeconds = Math.round((performance.now() - seedStarted) / 1000);

  // the dry run: the store's own statement, over the whole hour; beside it the selection's NOT EXISTS form (the
  // dry run's statement until 2026-12-06, still the batches' selection), timed in turn with it
  const { selectedAttempts, countByEndpointStatement } = compiled(
    'modules/webhooks/core/replays/replay-selection.js',
  );
  const selection = (until) => ({
    communityId,
    endpointIds,
    since: base,
    until,
    eventTypes: null,
    status: 'FAILED',
    responseStatus: null,
  });
  const now = new Date();
  const dryRun = countByEndpointStatement(selection(now));
  const all = selectedAttempts(selection(now));
  const formerSql = `SELECT d.endpoint_id::text AS endpoint_id, count(*)::int AS n ${all.text} GROUP BY d.endpoint_id`;
  const countMs = [];
  const formerMs = [];
  for (let i = 0; i < COUNTS; i++) {
    for (const [sql, values, times] of [
      [dryRun.text, dryRun.values, countMs],
      [formerSql, all.values, formerMs],
    ]) {
      const started = performance.now();
      const { rows } = await env.db.query(sql, values);
      times.push(performance.now() - started);
      const counted = rows.reduce((sum, r) => sum + r.n, 0);
      if (counted !== MESSAGES * ENDPOINTS)
        throw new Error(`the dry run counted ${counted}, not ${MESSAGES * ENDPOINTS}`);
    }
  }
  countMs.sort((a, b) => a - b);
  formerMs.sort((a, b) => a - b);

  // the replay: the first QUEUE attempts' window, as the API's create writes it
  worker = await startWorker({
    DATABASE_URL: env.databaseUrl,
    REDIS_KEY_PREFIX: env.prefix,
    WEBHOOK_REPLAY_INTERVAL: '50ms',
    WEBHOOK_REPLAY_MAX_PENDING: String(10 * QUEUE),
  });
  const queueUntil = new Date(base.getTime() + Math.ceil((QUEUE / ENDPOINTS) * (HOUR_MS / MESSAGES)) + 1);
  const window = selectedAttempts(selection(queueUntil));
  const {
    rows: [{ total }],
  } = await env.db.query(`SELECT count(*)::int AS total ${window.text}`, window.values);
  const {
    rows: [{ id }],
  } = await env.db.query(
    `INSERT INTO webhook_replays (id, community_id, endpoint_ids, status_filter, since, until, total, cursor_created_at)
     VALUES (gen_random_uuid(), $1, $2::uuid[], 'FAILED', $3, $4, $5, $3) RETURNING id`,
    [communityId, endpointIds, base, queueUntil, total],
  );
  const replay = await until(
    'the replay to be queued',
    async () => {
      const { rows } = await env.db.query(
        `SELECT state, queued, extract(epoch FROM finished_at - created_at) * 1000 AS ms FROM webhook_replays WHERE id = $1`,
        [id],
      );
      return rows[0].state === 'done' && rows[0];
    },
    600_000,
    50,
  );
  const queuedPerSecond = Math.round(replay.queued / (replay.ms / 1000));
  const floorRate = floor && Math.round(floor.deliveriesPerSecond);
  const out = {
    benchmark: 'replay',
    date: new Date().toISOString().slice(0, 10),
    attempts: MESSAGES * ENDPOINTS,
    seedSeconds,
    dryRun: {
      p50Ms: Math.round(countMs[Math.floor(COUNTS / 2)]),
      maxMs: Math.round(countMs.at(-1)),
      target: '< 1000 ms',
      formerP50Ms: Math.round(formerMs[Math.floor(COUNTS / 2)]),
    },
    replay: { queued: replay.queued, ms: Math.round(replay.ms), queuedPerSecond, target: '>= 5000/s' },
    floor: floor && { deliverJobsPerSecond: floorRate, jobs: floor.jobs },
    queueRateToFloorDeliver: ratioIfFloor(queuedPerSecond, floorRate ?? undefined),
    loadAverage: loadavg().map((l) => Number(l.toFixed(1))),
  };
  console.log(JSON.stringify(out));
  record('replay', [
    {
      series: `dry run, ${MESSAGES * ENDPOINTS} attempts`,
      unit: 'ms',
      service: out.dryRun.p50Ms,
      maxMs: out.dryRun.maxMs,
      formerP50Ms: out.dryRun.formerP50Ms,
      target: '< 1000',
    },
    {
      series: `replay queued, ${replay.queued} attempts`,
      unit: 'messages/s',
      service: queuedPerSecond,
      floor: floorRate ?? undefined,
      ratio: out.queueRateToFloorDeliver,
      target: '>= 5000/s',
    },
  ]);
} finally {
  await worker?.stop();
  await receiver.close();
  await env.drop();
}
