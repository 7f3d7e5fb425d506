// Benchmark: the write routes that raise webhook events, side by side with the floor's `write` variant
// (../shared/bench-floor/floor-read.mjs: POST /tweets, the tweet, its outbox row and the exact counter in one
// transaction) in the same invocation: the floor posts the same 200-character body to both, 16 connections,
// autocannon and wrk, and this script prints service, floor, ratio, p50, p99 and peak RSS as one JSON line a route.
// Targets: POST /api/sdk/tweets >= 0.7x with p99 < 50 ms; the comment, like and PATCH routes >= 0.6x.
//
// The floor posts one body to one URL, which fits a route that creates a new row each time (tweets,
// comments). A like is new once per member and tweet, and a PATCH of one tweet by 16 connections
// would queue on that row's lock: those two routes go through the same wrk settings (connections,
// threads, warm-up, duration) with a script that gives every request a tweet of its own, from tweets
// inserted beforehand; the floor's `write` line of the same invocation is their reference.
//
// The tweet write with an Idempotency-Key (`tweets-keyed`) is judged against the same write without
// one, both driven by the same wrk script in the same invocation: the key may cost it at most 20%.
// BENCH_KEYED_PAIRS (3) pairs of runs, their order alternating; the pair with the median ratio is printed.
//
//   npm run build && node bench/writes.mjs             # seeds cp_bench once (as tweets-list.mjs), starts the API
//   BENCH_WRITES=tweets node bench/writes.mjs          # some routes (tweets, comments, likes, patch, tweets-keyed)
//   BENCH_API_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" node bench/writes.mjs   # profile the API meanwhile
//
// Env: DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/cp_bench, dropped at the end unless
// BENCH_KEEP_DB=1), BENCH_PORT (3500), BENCH_ROUNDS (1), and the floor's CONNS, WARMUP, DURATION.
// BENCH_RECORD=1 (or --record) appends one line per route to bench/results/writes.jsonl (lib/record.mjs).
// Without the floor (FLOOR_DIR missing) every route goes through this script's wrk, without a ratio.
import pg from 'pg';
import { fetch } from 'undici';
import { insertApiKey } from './lib/api-key.mjs';
import { ratio, ratioIfFloor } from './lib/floor.mjs';
import { record } from './lib/record.mjs';
import {
  BENCH_URL,
  DATABASE_URL,
  dropDatabaseUnlessKept,
  ensureDatabase,
  figures,
  peakRssMiB,
  seed,
  startApi,
  TARGET_RSS_RATIO,
} from './lib/read-bench.mjs';
import {
  emptyWritesCommunity,
  eventsOf,
  LOAD,
  PROBE_BODY,
  vacuumWritten,
  writeFloor,
  writesCommunity,
  wrkRun,
} from './lib/write-bench.mjs';

/**
 * `url` for the routes the floor drives itself; `perTweet` (method and path of one tweet) for those
 * driven by wrk with a tweet per request; `keyed` for the tweet write with an Idempotency-Key, driven
 * by wrk with and without the key in turn (its target is the keyed side against the other).
 */
const ROUTES = {
  tweets: { target: 0.7, url: () => `${BENCH_URL}/api/sdk/tweets` },
  comments: { target: 0.6, url: (tweetId) => `${BENCH_URL}/api/sdk/tweets/${tweetId}/comments` },
  likes: {
    target: 0.6,
    perTweet: { method: 'POST', path: (id) => `/api/sdk/tweets/${id}/like`, body: null },
  },
  patch: {
    target: 0.6,
    perTweet: { method: 'PATCH', path: (id) => `/api/sdk/tweets/${id}`, body: PROBE_BODY },
  },
  'tweets-keyed': { target: 0.8, keyed: { method: 'POST', path: '/api/sdk/tweets', body: PROBE_BODY } },
};

/** How many pairs of runs (without a key, with one) the keyed write's figure is the median of. */
const KEYED_PAIRS = Number(process.env.BENCH_KEYED_PAIRS ?? 3);

/** More tweets than the fastest route can use in a warm-up and a measured run, so no request repeats one. */
const TWEETS_FOR_PER_TWEET_ROUTES = 120_000;

/** Tweets of the writes community, inserted in one statement, for the routes that need one per request. */
async function insertTweets(db, communityId, ownerId, count) {
  const { rows } = await db.query(
    `INSERT INTO tweets (id, community_id, author_id, content, created_at, updated_at)
     SELECT gen_random_uuid(), $1, $2, 'A tweet to like or edit ' || g, now(), now()
       FROM generate_series(1, $3::int) AS g
     RETURNING id`,
    [communityId, ownerId, count],
  );
  await db.query('ANALYZE tweets');
  return rows.map((r) => r.id);
}

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
      const before = await eventsOf(db, communityId);
      let floor;
      let service;
      let routeName;
      if (route.perTweet) {
        const ids = await insertTweets(db, communityId, ownerId, TWEETS_FOR_PER_TWEET_ROUTES);
        const { method, path, body } = route.perTweet;
        const check = await fetch(`${BENCH_URL}${path(ids.pop())}`, {
          method,
          headers: body === null ? { 'x-api-key': apiKey } : headers,
          body: body ?? undefined,
        });
        if (!check.ok) throw new Error(`${name}: unexpected answer ${check.status}: ${await check.text()}`);
        ({ floor } = await writeFloor());
        const run = { method, path: path('ID'), body, ids };
        service = { wrk: await wrkRun(run, apiKey), peakRssMiB: peakRssMiB(api.pid) };
        routeName = `${method} ${path('{id}')} (a tweet of its own per request)`;
      } else if (route.keyed) {
        ({ floor } = await writeFloor());
        // pairs of runs, the order alternating, so a load that drifts during the invocation (these machines
        // share their cores) weighs on both sides alike; the pair with the median ratio is reported
        const pairs = [];
        for (let i = 0; i < KEYED_PAIRS; i++) {
          const runs = {};
          for (const keyed of i % 2 === 0 ? [false, true] : [true, false]) {
            await vacuumWritten(db);
            runs[keyed ? 'keyed' : 'unkeyed'] = await wrkRun({ ...route.keyed, keyed }, apiKey);
          }
          pairs.push({ ...runs, ratio: ratio(runs.keyed.rps, runs.unkeyed.rps) });
        }
        const median = [...pairs].sort((x, y) => x.ratio - y.ratio)[Math.floor(pairs.length / 2)];
        service = { wrk: median.keyed, unkeyed: median.unkeyed, keyedToUnkeyed: median.ratio };
        service.pairRatios = pairs.map((pair) => pair.ratio);
        service.peakRssMiB = peakRssMiB(api.pid);
        routeName = `POST ${route.keyed.path} with a fresh Idempotency-Key per request (unkeyed: the same wrk run without)`;
      } else {
        const url = route.url(tweet.data.id);
        const check = await fetch(url, { method: 'POST', headers, body: PROBE_BODY });
        if (check.status !== 201)
          throw new Error(`${name}: unexpected answer ${check.status}: ${await check.text()}`);
        const round = await writeFloor({
          COMPARE_URL: url,
          COMPARE_KEY: apiKey,
          COMPARE_PID: String(api.pid),
          COMPARE_METHOD: 'POST',
        });
        floor = round.floor;
        // the floor posts to both, identically; without it this script's wrk posts the same body
        service = floor
          ? figures(round.lines, 'compare:')
          : {
              wrk: await wrkRun(
                { method: 'POST', path: url.replace(BENCH_URL, ''), body: PROBE_BODY },
                apiKey,
              ),
              peakRssMiB: 0,
            };
        service.peakRssMiB = Math.max(service.peakRssMiB, peakRssMiB(api.pid));
        routeName = `POST ${url.replace(BENCH_URL, '')}`;
      }
      const events = (await eventsOf(db, communityId)) - before;
      const r = ratioIfFloor(service.wrk.rps, floor?.wrk.rps);
      const rss = ratioIfFloor(service.peakRssMiB, floor?.peakRssMiB);
      const target = `${route.keyed ? 'keyed / unkeyed' : 'ratio'} >= ${route.target}${name === 'tweets' ? ', p99 < 50 ms' : ''}`;
      console.log(
        JSON.stringify({
          benchmark: `writes:${name}`,
          date: new Date().toISOString().slice(0, 10),
          route: `${routeName} (X-Api-Key, 200-character content where there is a body), ${LOAD.connections} connections`,
          service,
          floor,
          ratio: r,
          peakRssRatio: rss,
          eventsWritten: events,
          targets: `${target}, peak RSS <= ${TARGET_RSS_RATIO}x the floor's`,
          // without the floor only the keyed write's own target (keyed / unkeyed) can be judged
          pass:
            floor === null
              ? route.keyed
                ? service.keyedToUnkeyed >= route.target
                : undefined
              : (route.keyed ? service.keyedToUnkeyed >= route.target : r >= route.target) &&
                (name !== 'tweets' || service.wrk.p99Ms < 50) &&
                rss <= TARGET_RSS_RATIO,
        }),
      );
      // the line's ratio is to the floor's `write` for every route, the keyed one's included (its own
      // target, keyed / unkeyed, is beside it)
      record('writes', [
        {
          series: name,
          unit: 'req/s (wrk)',
          service: service.wrk.rps,
          floor: floor?.wrk.rps,
          ratio: r,
          target: route.keyed ? undefined : `>= ${route.target}`,
          p50Ms: service.wrk.p50Ms,
          p99Ms: service.wrk.p99Ms,
          floorP99Ms: floor?.wrk.p99Ms,
          ...(route.keyed
            ? {
                unkeyed: service.unkeyed.rps,
                keyedToUnkeyed: service.keyedToUnkeyed,
                keyedTarget: `>= ${route.target}`,
                pairRatios: service.pairRatios,
              }
            : {}),
          peakRssMiB: service.peakRssMiB,
          floorPeakRssMiB: floor?.peakRssMiB,
          rssRatio: rss,
        },
      ]);
    }
  } finally {
    api.kill('SIGTERM');
    await emptyWritesCommunity(db, communityId);
    await db.end();
    await dropDatabaseUnlessKept();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
