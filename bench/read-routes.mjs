// Benchmark: the other hot reads (listed below), side by side with the floor's `best` variant
// (../shared/bench-floor/floor-read.mjs: key cached, statements planned once, count cached) run first
// in the same invocation, each measured as the floor measures (autocannon, 16 connections, 3 s
// warm-up + 15 s):
//
//   GET /api/sdk/tweets?page=1&limit=20          Bearer (X-Api-Key: bench/tweets-list.mjs)
//   GET /api/sdk/members?limit=20                 X-Api-Key, 10,000 members
//   GET /api/admin/sdk/me                         X-Api-Key and Bearer
//   GET /api/communities/{id}/webhooks/{id}/deliveries?status=FAILED&limit=50   Bearer, 1,000,000 attempts
//
//   npm run build && node bench/read-routes.mjs
//
// Seeds (once, into the database of bench/tweets-list.mjs) 10,000 members and an endpoint with
// 1,000,000 attempts (one in ten FAILED). Prints one JSON line: the floor, and per route req/s,
// p50, p99 and the ratio to the floor; the API's peak RSS over its start-up and the routes' load
// (not the one login before it, whose peak is printed beside) and its ratio to the floor process's.
// Targets: lib/read-bench.mjs. The database is dropped at the end unless BENCH_KEEP_DB=1.
// BENCH_RECORD=1 (or --record) appends one line per route to bench/results/read-routes.jsonl
// (lib/record.mjs); without the floor (FLOOR_DIR missing) the routes are measured without a ratio.
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import pg from 'pg';
import { insertApiKey } from './lib/api-key.mjs';
import { floorPresent, ratioIfFloor, runFloor } from './lib/floor.mjs';
import { record } from './lib/record.mjs';
import {
  bearerFor,
  DATABASE_URL,
  dropDatabaseUnlessKept,
  ensureDatabase,
  figures,
  insertAttempts,
  FLOOR_READ_LINE,
  FLOOR_READ_VARIANT,
  measureRoute,
  peakRssMiB,
  resetPeakRss,
  ROOT,
  ROUNDS,
  seed,
  startApi,
  TARGET_DELIVERY_LOG_P99_MS,
  TARGET_P99_MS,
  TARGET_RATIO,
  TARGET_RSS_RATIO,
} from './lib/read-bench.mjs';

const require = createRequire(import.meta.url);
const { PasswordService } = require(resolve(ROOT, 'dist/modules/auth/password.service.js'));

const MEMBERS = 10_000;
const ATTEMPTS = 1_000_000;
const PASSWORD = 'bench password of the owner';

/** 10,000 members, the owner's password, and an endpoint with 1,000,000 attempts, unless there. */
async function seedMore(db, communityId, ownerId) {
  await db.query('UPDATE users SET password_hash = $1 WHERE id = $2', [
    await new PasswordService().hash(PASSWORD),
    ownerId,
  ]);
  const members = await db.query('SELECT count(*)::int AS n FROM memberships WHERE community_id = $1', [
    communityId,
  ]);
  if (members.rows[0].n < MEMBERS) {
    await db.query(
      `INSERT INTO users (id, email, name, updated_at)
       SELECT gen_random_uuid(), 'member' || g || '@bench.test', 'Member ' || g, now()
         FROM generate_series(1, $1::int) g ON CONFLICT (email) DO NOTHING`,
      [MEMBERS],
    );
    await db.query(
      `INSERT INTO memberships (id, community_id, user_id, role, display_name, joined_at, updated_at)
       SELECT gen_random_uuid(), $1, u.id, 'MEMBER', u.name, now() - (row_number() OVER ()) * interval '1 minute', now()
         FROM users u WHERE u.email LIKE 'member%@bench.test' ON CONFLICT DO NOTHING`,
      [communityId],
    );
  }
  let endpoint = await db.query('SELECT id FROM webhook_endpoints WHERE community_id = $1 LIMIT 1', [
    communityId,
  ]);
  if (endpoint.rowCount === 0) {
    endpoint = await db.query(
      `INSERT INTO webhook_endpoints (id, community_id, url, events, updated_at)
       VALUES (gen_random_uuid(), $1, 'https://receiver.bench.test/hook', ARRAY['tweet.created'], now()) RETURNING id`,
      [communityId],
    );
    await insertAttempts(db, { communityId, endpointId: endpoint.rows[0].id, count: ATTEMPTS });
    await db.query('VACUUM ANALYZE webhook_deliveries');
  }
  await db.query('VACUUM ANALYZE memberships');
  return endpoint.rows[0].id;
}

await ensureDatabase();
const db = new pg.Client({ connectionString: DATABASE_URL });
await db.connect();
const { communityId, ownerId } = await seed(db);
const endpointId = await seedMore(db, communityId, ownerId);
const apiKey = await insertApiKey(db, communityId, ownerId);
await db.end();

const floorFigures = floorPresent()
  ? figures(
      (await runFloor('floor-read.mjs', { VARIANTS: FLOOR_READ_VARIANT, ROUNDS }, { allLines: true })).lines,
      FLOOR_READ_LINE,
    )
  : null;
const floor = floorFigures?.autocannon;

const api = await startApi();
try {
  // the API's start-up counts, as the floor's does; the one login that gets the Bearer token does
  // not: the floor logs nobody in, and that login's argon2 block
  // (src/modules/auth/password.service.ts) would be the peak. Its own peak is printed beside
  // (loginPeakRssMiB); bench/auth.mjs measures logins.
  const startPeakRssMiB = peakRssMiB(api.pid);
  const bearer = await bearerFor({ email: 'owner@bench.test', password: PASSWORD, communityId });
  const loginPeakRssMiB = peakRssMiB(api.pid);
  resetPeakRss(api.pid);
  const key = { 'x-api-key': apiKey };
  const routes = {
    'tweets (Bearer)': await measureRoute('/api/sdk/tweets?page=1&limit=20', bearer),
    'members (X-Api-Key)': await measureRoute('/api/sdk/members?limit=20', key),
    'me (X-Api-Key)': await measureRoute('/api/admin/sdk/me', key),
    'me (Bearer)': await measureRoute('/api/admin/sdk/me', bearer),
    'deliveries FAILED (Bearer)': await measureRoute(
      `/api/communities/${communityId}/webhooks/${endpointId}/deliveries?status=FAILED&limit=50`,
      bearer,
    ),
  };
  for (const figure of Object.values(routes)) figure.ratio = ratioIfFloor(figure.rps, floor?.rps);
  const apiPeakRssMiB = Math.max(startPeakRssMiB, peakRssMiB(api.pid));
  const rss = ratioIfFloor(apiPeakRssMiB, floorFigures?.peakRssMiB);
  const log = routes['deliveries FAILED (Bearer)'];
  const others = Object.entries(routes).filter(([name]) => !name.startsWith('deliveries'));
  console.log(
    JSON.stringify({
      benchmark: 'read-routes',
      date: new Date().toISOString().slice(0, 10),
      floor: floor && { ...floor, peakRssMiB: floorFigures.peakRssMiB },
      routes,
      apiPeakRssMiB,
      peakRssRatio: rss,
      loginPeakRssMiB,
      targets: `ratio >= ${TARGET_RATIO} and p99 < ${TARGET_P99_MS} ms; the delivery log p99 < ${TARGET_DELIVERY_LOG_P99_MS} ms; peak RSS <= ${TARGET_RSS_RATIO}x the floor's`,
      pass: floor
        ? others.every(([, f]) => f.ratio >= TARGET_RATIO && f.p99Ms < TARGET_P99_MS) &&
          log.p99Ms < TARGET_DELIVERY_LOG_P99_MS &&
          rss <= TARGET_RSS_RATIO
        : undefined,
    }),
  );
  record(
    'read-routes',
    Object.entries(routes).map(([name, figure]) => ({
      series: name,
      unit: 'req/s (autocannon)',
      service: figure.rps,
      floor: floor?.rps,
      ratio: figure.ratio,
      target: name.startsWith('deliveries') ? undefined : `>= ${TARGET_RATIO}`,
      p50Ms: figure.p50Ms,
      p99Ms: figure.p99Ms,
      floorP99Ms: floor?.p99Ms,
      peakRssMiB: apiPeakRssMiB,
      floorPeakRssMiB: floorFigures?.peakRssMiB,
      rssRatio: rss,
      loginPeakRssMiB,
    })),
  );
} finally {
  api.kill('SIGTERM');
  await dropDatabaseUnlessKept();
}
