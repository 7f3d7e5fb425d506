// The community's messages searched by subject (BENCH_MESSAGES_MODE=subject of bench/delivery-messages.mjs):
//
//   GET /api/communities/{id}/webhooks/messages?subject=<id>&limit=50    Bearer, one request at a time
//
// Seeds (once, into its own database, cp_bench_subjects) a community of 4 endpoints and BENCH_SUBJECT_MESSAGES
// messages (default 250,000) sent to each, a message every two seconds going back, with ids shaped as the service
// makes them (msg_ and a ULID whose time part is the message's instant): 1,000,000 attempts 1, and a retry on
// the first endpoint for one message in ten (its attempt 1 answered 503). Five messages share a subject, so a
// subject has about five messages on four endpoints. A second community holds as many messages on one endpoint,
// so the indexes hold more than the community searched. Each query is sent BENCH_SUBJECT_REQUESTS times (default
// 1,000) one after the other, a random subject each time, and judged by its p99; a state filter that matches
// nothing (status=FAILED: every retried message succeeded) is sent three times, to show what a walk costs. Prints one JSON line;
// BENCH_RECORD=1 appends it to bench/results/delivery-messages.jsonl.
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { resolve } from 'node:path';

const MESSAGES = Number(process.env.BENCH_SUBJECT_MESSAGES ?? 250_000);
const REQUESTS = Number(process.env.BENCH_SUBJECT_REQUESTS ?? 1000);
const PER_SUBJECT = 5;
const ENDPOINTS = 4;
const TARGET_P99_MS = 20;
const PASSWORD = 'bench password of the owner';

/** A subject's id, as the seed writes it: a uuid made of its number (n from 0). */
const subjectOf = (n) => `5b1ec700-0000-4000-8000-${String(n).padStart(12, '0')}`;
const SUBJECT_SQL = (n) => `('5b1ec700-0000-4000-8000-' || lpad((${n})::text, 12, '0'))`;

async function seedMessages(db, communityId, ownerId, bench) {
  const { PasswordService } = createRequire(import.meta.url)(
    resolve(bench.ROOT, 'dist/modules/auth/password.service.js'),
  );
  await db.query('UPDATE users SET password_hash = $1 WHERE id = $2', [
    await new PasswordService().hash(PASSWORD),
    ownerId,
  ]);
  const found = await db.query('SELECT count(*)::int AS n FROM webhook_endpoints WHERE community_id = $1', [
    communityId,
  ]);
  if (found.rows[0].n > 0) return;
  const started = Date.now();
  const other = await db.query(`SELECT id FROM communities WHERE slug = 'bench-other-1'`);
  await db.query('BEGIN');
  // Crockford base32 of `v` in `n` characters, as ULID writes its parts
  await db.query(`CREATE FUNCTION pg_temp.b32(v bigint, n int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
      SELECT string_agg(substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((v >> (5 * (n - 1 - i))) & 31)::int + 1, 1), ''
                        ORDER BY i)
        FROM generate_series(0, n - 1) AS i $$`);
  const seedCommunity = async (community, endpoints) => {
    const ids = [];
    for (let e = 0; e < endpoints; e++) {
      const row = await db.query(
        `INSERT INTO webhook_endpoints (id, community_id, url, events, updated_at)
         VALUES (gen_random_uuid(), $1, 'https://receiver.bench.test/hook-${e}', ARRAY['tweet.created'], now())
         RETURNING id`,
        [community],
      );
      ids.push(row.rows[0].id);
    }
    const message = `SELECT g, m.at,
                            'msg_' || pg_temp.b32((extract(epoch FROM m.at) * 1000)::bigint, 10)
                                   || pg_temp.b32(g, 13) || 'BEN' AS message_id,
                            ${SUBJECT_SQL(`g / ${PER_SUBJECT}`)} AS subject
                       FROM generate_series(0, ${MESSAGES - 1}) AS g,
                            LATERAL (SELECT date_trunc('milliseconds', now()) - g * interval '2 seconds' AS at) AS m`;
    await db.query(
      `INSERT INTO webhook_deliveries
         (id, community_id, endpoint_id, message_id, event_type, attempt, status, response_status, duration_ms,
          created_at, updated_at, started_at, subject)
       SELECT gen_random_uuid(), $1, e.id, m.message_id, 'tweet.created', 1,
              CASE WHEN e.first AND m.g % 10 = 0 THEN 'FAILED' ELSE 'SUCCESS' END::"DeliveryStatus",
              CASE WHEN e.first AND m.g % 10 = 0 THEN 503 ELSE 200 END, 12, m.at, m.at, m.at, m.subject
         FROM (${message}) AS m
         CROSS JOIN (SELECT id, ord = 1 AS first FROM unnest($2::uuid[]) WITH ORDINALITY AS u(id, ord)) AS e`,
      [community, ids],
    );
    await db.query(
      `INSERT INTO webhook_deliveries
         (id, community_id, endpoint_id, message_id, event_type, attempt, status, response_status, duration_ms,
          created_at, updated_at, started_at, subject)
       SELECT gen_random_uuid(), $1, $2, m.message_id, 'tweet.created', 2, 'SUCCESS', 200, 12,
              m.at + interval '5 seconds', m.at + interval '5 seconds', m.at + interval '5 seconds', m.subject
         FROM (${message}) AS m WHERE m.g % 10 = 0`,
      [community, ids[0]],
    );
  };
  await seedCommunity(communityId, ENDPOINTS);
  await seedCommunity(other.rows[0].id, 1);
  await db.query('COMMIT');
  await db.query('VACUUM ANALYZE webhook_deliveries');
  console.log(
    `seeded ${MESSAGES} messages × ${ENDPOINTS} endpoints (and another community's) in ${Date.now() - started} ms`,
  );
}

/** `count` requests one after the other, each path from `pathOf(i)`: p50, p99 and the items of the last. */
async function sequential(fetch, headers, count, pathOf) {
  const times = [];
  let items = 0;
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const res = await fetch(pathOf(i), { headers });
    const body = await res.json();
    times.push(performance.now() - started);
    if (res.status !== 200)
      throw new Error(`${pathOf(i)}: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
    items = body.data.items.length;
  }
  times.sort((a, b) => a - b);
  const at = (q) => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))] * 10) / 10;
  return { requests: count, items, p50Ms: at(0.5), p99Ms: at(0.99) };
}

export async function runSubjectSearch(bench, pg, { fetch }, { record }) {
  await bench.ensureDatabase();
  const db = new pg.Client({ connectionString: bench.DATABASE_URL });
  await db.connect();
  const { communityId, ownerId } = await bench.seed(db);
  await seedMessages(db, communityId, ownerId, bench);
  const { rows } = await db.query(
    'SELECT count(*)::int AS attempts FROM webhook_deliveries WHERE community_id = $1',
    [communityId],
  );
  await db.end();

  const api = await bench.startApi();
  try {
    const headers = await bench.bearerFor({ email: 'owner@bench.test', password: PASSWORD, communityId });
    const base = `${bench.BENCH_URL}/api/communities/${communityId}/webhooks/messages?limit=50`;
    const subjects = MESSAGES / PER_SUBJECT;
    const randomSubject = () => subjectOf(Math.floor(Math.random() * subjects));
    const first = await (await fetch(base, { headers })).json();
    const cursor = encodeURIComponent(first.data.nextCursor);
    const routes = {
      subject: await sequential(fetch, headers, REQUESTS, () => `${base}&subject=${randomSubject()}`),
      'subject&responseStatus=5xx': await sequential(
        fetch,
        headers,
        REQUESTS,
        () => `${base}&subject=${randomSubject()}&responseStatus=5xx`,
      ),
      none: await sequential(fetch, headers, REQUESTS, () => base),
      'the second page (cursor)': await sequential(
        fetch,
        headers,
        REQUESTS,
        () => `${base}&cursor=${cursor}`,
      ),
      // the state filters alone walk the community's messages until a page is full: a few requests, as a
      // warning of what a rare match costs, not a figure to judge
      'status=FAILED (matches none)': await sequential(fetch, headers, 3, () => `${base}&status=FAILED`),
    };
    const result = {
      benchmark: 'delivery-messages',
      mode: 'subject',
      date: new Date().toISOString().slice(0, 10),
      attemptsInCommunity: rows[0].attempts,
      routes,
      apiPeakRssMiB: bench.peakRssMiB(api.pid),
      targets: `p99 < ${TARGET_P99_MS} ms for the subject search, one request at a time`,
      pass: routes.subject.p99Ms < TARGET_P99_MS,
    };
    console.log(JSON.stringify(result));
    record('delivery-messages', [
      {
        series: 'subject search, 1 connection',
        unit: 'ms, requests one after the other',
        routes,
        target: result.targets,
        peakRssMiB: result.apiPeakRssMiB,
      },
    ]);
  } finally {
    api.kill('SIGTERM');
    await bench.dropDatabaseUnlessKept();
  }
}
