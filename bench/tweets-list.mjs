// Benchmark: GET /api/sdk/tweets?page=1&limit=20 with X-Api-Key, for a community of 100,000 tweets
// in a table of 300,000 (two other communities hold 100,000 each), side by side with the floor's
// `best` variant (../shared/bench-floor/floor-read.mjs: key cached, statements planned once, count
// cached) in the same invocation: the floor measures both identically (autocannon and wrk, 16
// connections, 3 s warm-up + 15 s) and this script prints service, floor, ratio, p50, p99 and peak RSS
// (and its ratio to the floor process's) as one JSON line. Targets: lib/read-bench.mjs.
//
//   npm run build && node bench/tweets-list.mjs            # seeds cp_bench once, starts the API from dist/
//   node bench/tweets-list.mjs --prepare                   # only create, migrate and seed the database
//
// Env: DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/cp_bench: created, migrated and seeded
// when it has no bench community yet, an existing seed reused; dropped at the end unless BENCH_KEEP_DB=1),
// BENCH_PORT (3500), BENCH_ROUNDS (1). BENCH_TRACING=compare measures it again with the API's tracing on
// (an OTLP endpoint served by the bench) and prints tracing on / off. BENCH_RECORD=1 (or --record) appends
// the run to bench/results/tweets-list.jsonl (lib/record.mjs). Without the floor (FLOOR_DIR missing) the
// service is measured alone with the same autocannon settings (wrk is the floor script's), without a ratio.
// Seeding is set-based (generate_series); the statement-level triggers keep the counters exact.
import pg from 'pg';
import { fetch } from 'undici';
import { insertApiKey } from './lib/api-key.mjs';
import { startTraceSink } from './lib/delivery-harness.mjs';
import { floorPresent, ratio, ratioIfFloor, runFloor } from './lib/floor.mjs';
import { record } from './lib/record.mjs';
import {
  BENCH_URL,
  DATABASE_URL,
  dropDatabaseUnlessKept,
  ensureDatabase,
  figures,
  FLOOR_READ_LINE,
  FLOOR_READ_VARIANT,
  measureRoute,
  peakRssMiB,
  ROUNDS,
  seed,
  startApi,
  TARGET_P99_MS,
  TARGET_RATIO,
  TARGET_RSS_RATIO,
  TWEETS_PER_COMMUNITY,
} from './lib/read-bench.mjs';

async function main() {
  await ensureDatabase();
  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  const { communityId, ownerId } = await seed(db);
  const apiKey = await insertApiKey(db, communityId, ownerId);
  await db.end();
  if (process.argv.includes('--prepare')) return console.log(`prepared ${DATABASE_URL}`);
  try {
    const untraced = await measure(apiKey);
    const lines = [resultLine('tweets page (X-Api-Key)', untraced)];
    if (process.env.BENCH_TRACING === 'compare') {
      // the same, the API with tracing on (an OTLP endpoint served here, every trace sampled): reads are
      // not traced, so this is what tracing's presence costs them (docs/operations.md#tracing)
      const sink = await startTraceSink();
      try {
        const traced = await measure(apiKey, sink.env);
        const tracedToUntraced = ratio(rateOf(traced.service), rateOf(untraced.service));
        console.log(
          JSON.stringify({
            benchmark: 'tweets-list: tracing on / off',
            untracedRps: rateOf(untraced.service),
            tracedRps: rateOf(traced.service),
            tracedToUntraced,
            target: `>= ${TRACED_TARGET}`,
          }),
        );
        lines.push({ ...resultLine('tweets page, tracing on', traced), tracedToUntraced });
      } finally {
        await sink.close();
      }
    }
    record('tweets-list', lines);
  } finally {
    await dropDatabaseUnlessKept();
  }
}

/** Reads with tracing on, to the same API with it off. */
const TRACED_TARGET = 0.85;

/** The rate compared: wrk's, as the floor measures both; autocannon's when the floor (and its wrk) did not run. */
const rateOf = (figures) => figures.wrk?.rps ?? figures.autocannon.rps;

/** One measurement as a line of bench/results/tweets-list.jsonl. */
function resultLine(series, { service, floor }) {
  const tool = service.wrk ? 'wrk' : 'autocannon';
  return {
    series,
    unit: `req/s (${tool})`,
    service: service[tool].rps,
    floor: floor?.[tool].rps,
    ratio: ratioIfFloor(service[tool].rps, floor?.[tool].rps),
    target: `>= ${TARGET_RATIO}`,
    p50Ms: service[tool].p50Ms,
    p99Ms: service[tool].p99Ms,
    floorP99Ms: floor?.[tool].p99Ms,
    peakRssMiB: service.peakRssMiB,
    floorPeakRssMiB: floor?.peakRssMiB,
    rssRatio: ratioIfFloor(service.peakRssMiB, floor?.peakRssMiB),
  };
}

async function measure(apiKey, extraEnv = {}) {
  const api = await startApi(extraEnv);
  try {
    const url = `${BENCH_URL}/api/sdk/tweets?page=1&limit=20`;
    const probe = await fetch(url, { headers: { 'x-api-key': apiKey } });
    const body = await probe.json();
    if (probe.status !== 200 || body.data.total !== TWEETS_PER_COMMUNITY || body.data.items.length !== 20) {
      throw new Error(`unexpected answer ${probe.status}: ${JSON.stringify(body).slice(0, 300)}`);
    }
    let floor = null;
    let service;
    if (floorPresent()) {
      // the floor measures its own server, then the service, identically (autocannon and wrk)
      const out = await runFloor(
        'floor-read.mjs',
        {
          VARIANTS: FLOOR_READ_VARIANT,
          ROUNDS,
          COMPARE_URL: url,
          COMPARE_KEY: apiKey,
          COMPARE_PID: String(api.pid),
        },
        { allLines: true },
      );
      floor = figures(out.lines, FLOOR_READ_LINE);
      service = figures(out.lines, 'compare:');
    } else {
      service = {
        autocannon: await measureRoute('/api/sdk/tweets?page=1&limit=20', { 'x-api-key': apiKey }),
      };
      service.peakRssMiB = 0;
    }
    service.peakRssMiB = Math.max(service.peakRssMiB, peakRssMiB(api.pid));
    const r = ratioIfFloor(service.wrk?.rps, floor?.wrk.rps);
    const rss = ratioIfFloor(service.peakRssMiB, floor?.peakRssMiB);
    console.log(
      JSON.stringify({
        benchmark: 'tweets-list',
        date: new Date().toISOString().slice(0, 10),
        route: 'GET /api/sdk/tweets?page=1&limit=20 (X-Api-Key), 16 connections',
        service,
        floor,
        ratio: r,
        peakRssRatio: rss,
        targets: `ratio >= ${TARGET_RATIO}, p99 < ${TARGET_P99_MS} ms, peak RSS <= ${TARGET_RSS_RATIO}x the floor's`,
        pass: floor
          ? r >= TARGET_RATIO && service.wrk.p99Ms < TARGET_P99_MS && rss <= TARGET_RSS_RATIO
          : undefined,
      }),
    );
    return { service, floor };
  } finally {
    // gone before the next measurement starts an API on the same port
    const exited = api.exitCode !== null ? Promise.resolve() : new Promise((r) => api.once('exit', r));
    api.kill('SIGTERM');
    await exited;
  }
}

await main();
