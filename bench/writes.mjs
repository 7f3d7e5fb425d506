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
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { fetch } from 'undici';
import { insertApiKey } from './lib/api-key.mjs';
import { floorPresent, ratio, ratioIfFloor, runFloor } from './lib/floor.mjs';
import { record } from './lib/record.mjs';
import {
  BENCH_URL,
  DATABASE_URL,
  dropDatabaseUnlessKept,
  ensureDatabase,
  figures,
  peakRssMiB,
  ROUNDS,
  seed,
  startApi,
  TARGET_RSS_RATIO,
} from './lib/read-bench.mjs';

/** The floor's body (floor-read.mjs posts the same to the compared route). */
const PROBE_BODY = JSON.stringify({ content: 'A write of the benchmark: '.padEnd(200, 'x') });

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

/** The floor's load settings (floor-read.mjs reads the same variables, with the same defaults). */
const LOAD = {
  connections: Number(process.env.CONNS ?? 16),
  warmupSecs: Number(process.env.WARMUP ?? 3),
  durationSecs: Number(process.env.DURATION ?? 15),
};

/** How many pairs of runs (without a key, with one) the keyed write's figure is the median of. */
const KEYED_PAIRS = Number(process.env.BENCH_KEYED_PAIRS ?? 3);

/** More tweets than the fastest route can use in a warm-up and a measured run, so no request repeats one. */
const TWEETS_FOR_PER_TWEET_ROUTES = 120_000;

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
  await db.query('DELETE FROM idempotency_keys'); // the bench database's own: no other writer keys
  await db.query('DELETE FROM idempotency_callers');
  await vacuumWritten(db);
}

/**
 * What autovacuum would have done meanwhile, which these machines turn off: every write updates its
 * community's counter row (and every keyed write its caller's count), and without a vacuum each run
 * found the versions the runs before it left (a keyed run after three others at a third of its rate; the
 * community_counters table at 4.8 MB for its 8 rows).
 */
async function vacuumWritten(db) {
  await db.query(
    'VACUUM ANALYZE tweets, comments, outbox_events, idempotency_keys, idempotency_callers, community_counters',
  );
}

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

/**
 * wrk with the floor's settings (connections, two threads, warm-up, duration) and a script that varies
 * what the floor cannot: `ids` gives each request a tweet of its own (the path's `ID`; thread t of n
 * takes the tweets t, t + n, t + 2n, ... of a file its script reads at start, one Lua state per thread;
 * the warm-up and the measured run read different files, so no tweet is used twice); `keyed` sends a
 * fresh Idempotency-Key on each request. Returns the measured run's rate and latencies, and throws on
 * any non-2xx answer or when the tweets run out.
 */
async function wrkRun({ method, path, body, ids = null, keyed = false }, apiKey) {
  const dir = mkdtempSync(join(tmpdir(), 'cp-bench-writes-'));
  const threads = 2;
  const warmupShare = LOAD.warmupSecs / (LOAD.warmupSecs + LOAD.durationSecs);
  const split = ids ? Math.ceil(ids.length * warmupShare) : 0;
  const run = async (name, runIds, secs) => {
    const idsFile = join(dir, `${name}.txt`);
    writeFileSync(idsFile, (runIds ?? []).join('\n'));
    const script = join(dir, `${name}.lua`);
    const headers = { 'X-Api-Key': apiKey };
    if (body !== null) headers['Content-Type'] = 'application/json';
    writeFileSync(
      script,
      `local threadIndex = 0
function setup(thread)
  thread:set("first", threadIndex)
  threadIndex = threadIndex + 1
end
function init(args)
  ids = {}
  for line in io.lines(${JSON.stringify(idsFile)}) do ids[#ids + 1] = line end
  nextIndex = first + 1
  sent = 0
end
function request()
  local path = ${JSON.stringify(path)}
  if ${runIds ? 'true' : 'false'} then
    local id = ids[nextIndex]
    if id == nil then error("out of tweets: raise TWEETS_FOR_PER_TWEET_ROUTES") end
    nextIndex = nextIndex + ${threads}
    path = string.gsub(path, "ID", id)
  end
  local headers = ${luaTable(headers)}
  sent = sent + 1
  if ${keyed ? 'true' : 'false'} then headers["Idempotency-Key"] = "${randomUUID()}-" .. first .. "-" .. sent end
  return wrk.format(${JSON.stringify(method)}, path, headers, ${body === null ? 'nil' : JSON.stringify(body)})
end
`,
    );
    const { stdout } = await promisify(execFile)('wrk', [
      `-c${LOAD.connections}`,
      `-t${threads}`,
      `-d${secs}s`,
      '--latency',
      '-s',
      script,
      BENCH_URL,
    ]);
    if (/Non-2xx|Socket errors|out of tweets/.test(stdout))
      throw new Error(`wrk reported errors:\n${stdout}`);
    return stdout;
  };
  try {
    await run('warmup', ids && ids.slice(0, split), LOAD.warmupSecs);
    const out = await run('measured', ids && ids.slice(split), LOAD.durationSecs);
    const ms = (p) => {
      const [, v, unit] = out.match(new RegExp(`\\s${p}%\\s+([\\d.]+)(us|ms|s)`));
      return Math.round(v * { us: 1, ms: 1e3, s: 1e6 }[unit]) / 1e3;
    };
    return { rps: Number(out.match(/Requests\/sec:\s+([\d.]+)/)[1]), p50Ms: ms(50), p99Ms: ms(99) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A Lua table literal of string keys and values. */
const luaTable = (o) =>
  `{ ${Object.entries(o)
    .map(([k, v]) => `[${JSON.stringify(k)}] = ${JSON.stringify(v)}`)
    .join(', ')} }`;

const eventsOf = async (db, communityId) =>
  (await db.query('SELECT count(*)::int AS n FROM outbox_events WHERE community_id = $1', [communityId]))
    .rows[0].n;

/** The floor's `write` line of a round (its POST /tweets), or null when the floor is not there. */
async function writeFloor(extraEnv = {}) {
  if (!floorPresent()) return { floor: null, lines: [] };
  const out = await runFloor(
    'floor-read.mjs',
    { VARIANTS: 'write', ROUNDS, ...extraEnv },
    { allLines: true },
  );
  return { floor: figures(out.lines, 'POST /tweets'), lines: out.lines };
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
