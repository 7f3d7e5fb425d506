// Benchmark: the delivery log by message on one endpoint of 1,000,000 attempts, once per filter:
//
//   GET /api/communities/{id}/webhooks/{id}/messages?limit=50[&filter]   Bearer
//
//   npm run build && BENCH_KEEP_DB=1 node bench/delivery-messages.mjs
//
// Seeds (once, into its own database, cp_bench_messages) an endpoint of 800,000 messages and 1,000,000
// attempts: one message in four failed once and succeeded on its retry, one in fifty is still FAILED
// after one attempt, one in a thousand is a member.joined (the rest tweet.created); every message has its
// outbox row. Each filter is measured as the other reads are (autocannon, 16 connections, 3 s warm-up
// + BENCH_MESSAGES_SECONDS, default 10; BENCH_MESSAGES_CONNECTIONS=1 for one request at a time) and
// judged by its p99 alone; the attempt log's page (`deliveries?status=FAILED&limit=50`) is measured
// last, alike, as this machine's reference for a read. Prints one JSON line. The
// database is dropped at the end unless BENCH_KEEP_DB=1 (seeding takes minutes: keep it for a rerun).
// The floor has no such route: no ratio, each filter beside the reference of the same run. BENCH_RECORD=1
// (or --record) appends the run to bench/results/delivery-messages.jsonl (lib/record.mjs).
//
// BENCH_MESSAGES_MODE=subject measures the community's messages searched by subject instead
// (bench/lib/subject-search.mjs: its own database, cp_bench_subjects, and its own seed).
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const MODE = process.env.BENCH_MESSAGES_MODE ?? 'filters';
process.env.DATABASE_URL ??= `postgresql://postgres@127.0.0.1:5432/${MODE === 'subject' ? 'cp_bench_subjects' : 'cp_bench_messages'}`;
const { default: pg } = await import('pg');
const { fetch } = await import('undici');
const bench = await import('./lib/read-bench.mjs');
const { record } = await import('./lib/record.mjs');
if (MODE === 'subject') {
  const { runSubjectSearch } = await import('./lib/subject-search.mjs');
  await runSubjectSearch(bench, pg, { fetch }, { record });
  process.exit(0);
}

const require = createRequire(import.meta.url);
const autocannon = require('autocannon');
const { PasswordService } = require(resolve(bench.ROOT, 'dist/modules/auth/password.service.js'));

const MESSAGES = 800_000;
const PASSWORD = 'bench password of the owner';
const SECONDS = Number(process.env.BENCH_MESSAGES_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_MESSAGES_CONNECTIONS ?? 16);
const TARGET_P99_MS = 20;
const RARE_TYPE = 'member.joined';

/** The endpoint of 800,000 messages, unless a previous run seeded it; a message every second going back. */
async function seedMessages(db, communityId, ownerId) {
  await db.query('UPDATE users SET password_hash = $1 WHERE id = $2', [
    await new PasswordService().hash(PASSWORD),
    ownerId,
  ]);
  const found = await db.query('SELECT id FROM webhook_endpoints WHERE community_id = $1 LIMIT 1', [
    communityId,
  ]);
  if (found.rowCount > 0) return found.rows[0].id;
  const started = Date.now();
  // one transaction: a seed cut short leaves no endpoint for the next run to take as seeded
  await db.query('BEGIN');
  const endpoint = await db.query(
    `INSERT INTO webhook_endpoints (id, community_id, url, events, updated_at)
     VALUES (gen_random_uuid(), $1, 'https://receiver.bench.test/hook', ARRAY['tweet.created', '${RARE_TYPE}'], now())
     RETURNING id`,
    [communityId],
  );
  const endpointId = endpoint.rows[0].id;
  // ids that sort by time, as msg_<ULID> does: neighbours in the log are neighbours in the message index
  const message = `SELECT g, 'msg_bench_' || lpad((${MESSAGES} - g)::text, 7, '0') AS message_id,
                          CASE WHEN g % 1000 = 0 THEN '${RARE_TYPE}' ELSE 'tweet.created' END AS event_type,
                          now() - g * interval '1 second' AS at
                     FROM generate_series(1, ${MESSAGES}) AS g`;
  await db.query(
    `INSERT INTO outbox_events (community_id, message_id, event_type, payload, created_at, relayed_at)
     SELECT $1::uuid, m.message_id, m.event_type,
            jsonb_build_object('id', m.message_id, 'type', m.event_type, 'timestamp', m.at,
                               'communityId', $1::uuid::text, 'data', jsonb_build_object('n', m.g)),
            m.at, m.at
       FROM (${message}) AS m`,
    [communityId],
  );
  // attempt 1 of each message: FAILED for the retried ones (g % 4 = 0) and the failed ones (g % 50 = 1)
  await db.query(
    `INSERT INTO webhook_deliveries
       (id, community_id, endpoint_id, message_id, event_type, attempt, status, response_status, duration_ms,
        created_at, updated_at, started_at)
     SELECT gen_random_uuid(), $1, $2, m.message_id, m.event_type, 1,
            CASE WHEN m.g % 4 = 0 OR m.g % 50 = 1 THEN 'FAILED' ELSE 'SUCCESS' END::"DeliveryStatus",
            CASE WHEN m.g % 4 = 0 OR m.g % 50 = 1 THEN 500 ELSE 200 END, 12, m.at, m.at, m.at
       FROM (${message}) AS m`,
    [communityId, endpointId],
  );
  // attempt 2 of the retried ones, five seconds later, SUCCESS
  await db.query(
    `INSERT INTO webhook_deliveries
       (id, community_id, endpoint_id, message_id, event_type, attempt, status, response_status, duration_ms,
        created_at, updated_at, started_at)
     SELECT gen_random_uuid(), $1, $2, m.message_id, m.event_type, 2, 'SUCCESS', 200, 12,
            m.at + interval '5 seconds', m.at + interval '5 seconds', m.at + interval '5 seconds'
       FROM (${message}) AS m WHERE m.g % 4 = 0`,
    [communityId, endpointId],
  );
  await db.query('COMMIT');
  await db.query('VACUUM ANALYZE outbox_events');
  await db.query('VACUUM ANALYZE webhook_deliveries');
  console.log(`seeded ${MESSAGES} messages in ${Date.now() - started} ms`);
  return endpointId;
}

async function measure(path, headers) {
  const url = `${bench.BENCH_URL}${path}`;
  const check = await fetch(url, { headers });
  if (check.status !== 200) throw new Error(`${path}: ${check.status} ${(await check.text()).slice(0, 200)}`);
  const page = await check.json();
  const r = await autocannon({
    url,
    headers,
    connections: CONNECTIONS,
    duration: SECONDS,
    warmup: { connections: CONNECTIONS, duration: 3 },
  });
  if (r.non2xx || r.errors || r.timeouts) throw new Error(`${path}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return {
    items: page.data.items.length,
    rps: Math.round(r.requests.total / SECONDS),
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
  };
}

await bench.ensureDatabase();
const db = new pg.Client({ connectionString: bench.DATABASE_URL });
await db.connect();
const { communityId, ownerId } = await bench.seed(db);
const endpointId = await seedMessages(db, communityId, ownerId);
await db.end();

const api = await bench.startApi();
try {
  const bearer = await bench.bearerFor({ email: 'owner@bench.test', password: PASSWORD, communityId });
  const base = `/api/communities/${communityId}/webhooks/${endpointId}/messages?limit=50`;
  // a window of an hour, a day back (the route's since/until)
  const until = new Date(Date.now() - 24 * 3600_000);
  const since = new Date(until.getTime() - 3600_000);
  const filters = {
    none: '',
    messageId: `&messageId=msg_bench_${String(MESSAGES / 2).padStart(7, '0')}`,
    'status=FAILED': '&status=FAILED',
    [`eventType=${RARE_TYPE}`]: `&eventType=${RARE_TYPE}`,
    'eventType=tweet.created': '&eventType=tweet.created',
    [`eventType=${RARE_TYPE}&status=FAILED`]: `&eventType=${RARE_TYPE}&status=FAILED`,
    'since/until (one hour, a day back)': `&since=${since.toISOString()}&until=${until.toISOString()}`,
  };
  const routes = {};
  for (const [name, query] of Object.entries(filters)) routes[name] = await measure(base + query, bearer);
  // the attempt log's page of the same endpoint, measured alike: what this machine gives a read now
  const reference = await measure(
    `/api/communities/${communityId}/webhooks/${endpointId}/deliveries?status=FAILED&limit=50`,
    bearer,
  );
  console.log(
    JSON.stringify({
      benchmark: 'delivery-messages',
      date: new Date().toISOString().slice(0, 10),
      connections: CONNECTIONS,
      routes,
      reference: { 'deliveries?status=FAILED': reference },
      apiPeakRssMiB: bench.peakRssMiB(api.pid),
      targets: `p99 < ${TARGET_P99_MS} ms for each filter`,
      pass: Object.values(routes).every((r) => r.p99Ms < TARGET_P99_MS),
    }),
  );
  record('delivery-messages', [
    {
      series: `${CONNECTIONS} connection${CONNECTIONS > 1 ? 's' : ''}`,
      unit: 'req/s and ms (autocannon), per filter',
      routes,
      reference: { route: 'deliveries?status=FAILED&limit=50', ...reference },
      target: `p99 < ${TARGET_P99_MS} ms for each filter`,
      peakRssMiB: bench.peakRssMiB(api.pid),
    },
  ]);
} finally {
  api.kill('SIGTERM');
  await bench.dropDatabaseUnlessKept();
}
