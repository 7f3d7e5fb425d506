// Benchmark: the write routes that raise webhook events, side by side with the floor's `write` variant
// (../shared/bench-floor/floor-read.mjs: POST /tweets, the tweet, its outbox row and the exact counter in one
// transaction) in the same invocation: the floor posts the same 200-character body to both, 16 connections,
// autocannon and wrk, and this script prints service, floor, ratio, p50, p99 and peak RSS as one JSON line a route.
// Targets: POST /api/sdk/tweets >= 0.7x with p99 < 50 ms; the comment route >= 0.6x.
//
//   npm run build && node bench/writes.mjs             # seeds cp_bench once (as tweets-list.mjs), starts the API
//   BENCH_WRITES=tweets node bench/writes.mjs          # one route (tweets, comments)
//   BENCH_API_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" node bench/writes.mjs   # profile the API meanwhile
//
// Env: DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/cp_bench), BENCH_PORT (3500), BENCH_ROUNDS (1).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { fetch } from 'undici';
import { insertApiKey } from './lib/api-key.mjs';
import { ratio, runFloor } from './lib/floor.mjs';
import {
  BENCH_URL,
  DATABASE_URL,
  ensureDatabase,
  figures,
  peakRssMiB,
  ROUNDS,
  seed,
  startApi,
} from './lib/read-bench.mjs';

/** The floor's body (floor-read.mjs posts the same to the compared route). */
const PROBE_BODY = JSON.stringify({ content: 'A write of the benchmark: '.padEnd(200, 'x') });

const ROUTES = {
  tweets: { target: 0.7, url: () => `${BENCH_URL}/api/sdk/tweets` },
  comments: { target: 0.6, url: (tweetId) => `${BENCH_URL}/api/sdk/tweets/${tweetId}/comments` },
};

const WRITES_SLUG = 'bench-writes';

/**
 * A community of its own for the writes (the read benches count the tweets of theirs), emptied of what an
 * earlier run wrote; its owner is the read benches' owner.
 */
async function writesCommunity(db, ownerId) {
  const found = await db.query('SELECT id FROM communities WHERE slug = $1', [WRITES_SLUG]);
  if (found.rowCount > 0) {
    await emptyWritesCommunity(db, found.rows[0].id);
    return found.rows[0].id;
  }
  const id = randomUUID();
  await db.query(
    `INSERT INTO communities (id, slug, name, plan, updated_at) VALUES ($1, $2, $2, 'PRO', now())`,
    [id, WRITES_SLUG],
  );
  await db.query(
    `INSERT INTO memberships (id, community_id, user_id, role, updated_at) VALUES ($1, $2, $3, 'OWNER', now())`,
    [randomUUID(), id, ownerId],
  );
  return id;
}

/**
 * What a run wrote: the tweets (their comments go with them) and the events no worker relayed; then the
 * tables are vacuumed, since the read benches share this database and their plans would otherwise see
 * a run's hundreds of thousands of dead rows (the delivery log's join to the outbox went from an index
 * lookup to a scan of them).
 */
async function emptyWritesCommunity(db, id) {
  await db.query('DELETE FROM tweets WHERE community_id = $1', [id]);
  await db.query('DELETE FROM outbox_events WHERE community_id = $1', [id]);
  await db.query('VACUUM ANALYZE tweets, comments, outbox_events');
}

const eventsOf = async (db, communityId) =>
  (await db.query('SELECT count(*)::int AS n FROM outbox_events WHERE community_id = $1', [communityId]))
    .rows[0].n;

async function main() {
  await ensureDatabase();
  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  const { ownerId } = await seed(db);
  const communityId = await writesCommunity(db, ownerId);
  const apiKey = await insertApiKey(db, communityId, ownerId);
  const picked = (process.env.BENCH_WRITES ?? Object.keys(ROUTES).join(',')).split(',');

  const api = await startApi();
  try {
    const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
    const probe = await fetch(ROUTES.tweets.url(), { method: 'POST', headers, body: PROBE_BODY });
    const tweet = await probe.json();
    if (probe.status !== 201) throw new Error(`unexpected answer ${probe.status}: ${JSON.stringify(tweet)}`);
    for (const name of picked) {
      const route = ROUTES[name];
      if (!route) throw new Error(`unknown route ${name}: one of ${Object.keys(ROUTES).join(', ')}`);
      const url = route.url(tweet.data.id);
      const check = await fetch(url, { method: 'POST', headers, body: PROBE_BODY });
      if (check.status !== 201)
        throw new Error(`${name}: unexpected answer ${check.status}: ${await check.text()}`);
      const before = await eventsOf(db, communityId);
      const out = await runFloor(
        'floor-read.mjs',
        {
          VARIANTS: 'write',
          ROUNDS,
          COMPARE_URL: url,
          COMPARE_KEY: apiKey,
          COMPARE_PID: String(api.pid),
          COMPARE_METHOD: 'POST',
        },
        { allLines: true },
      );
      const floor = figures(out.lines, 'POST /tweets');
      const service = figures(out.lines, 'compare:');
      service.peakRssMiB = Math.max(service.peakRssMiB, peakRssMiB(api.pid));
      const events = (await eventsOf(db, communityId)) - before;
      const r = ratio(service.wrk.rps, floor.wrk.rps);
      console.log(
        JSON.stringify({
          benchmark: `writes:${name}`,
          date: new Date().toISOString().slice(0, 10),
          route: `POST ${url.replace(BENCH_URL, '')} (X-Api-Key, 200-character content), 16 connections`,
          service,
          floor,
          ratio: r,
          eventsWritten: events,
          targets: `ratio >= ${route.target}${name === 'tweets' ? ', p99 < 50 ms' : ''}`,
          pass: r >= route.target && (name !== 'tweets' || service.wrk.p99Ms < 50),
        }),
      );
    }
  } finally {
    api.kill('SIGTERM');
    await emptyWritesCommunity(db, communityId);
    await db.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
