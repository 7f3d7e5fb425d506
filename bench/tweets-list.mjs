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
// (an OTLP endpoint served by the bench) and prints tracing on / off.
// Seeding is set-based (generate_series); the statement-level triggers keep the counters exact.
import pg from 'pg';
import { fetch } from 'undici';
import { insertApiKey } from './lib/api-key.mjs';
import { startTraceSink } from './lib/delivery-harness.mjs';
import { ratio, runFloor } from './lib/floor.mjs';
import {
  BENCH_URL,
  DATABASE_URL,
  dropDatabaseUnlessKept,
  ensureDatabase,
  figures,
  FLOOR_READ_LINE,
  FLOOR_READ_VARIANT,
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
    if (process.env.BENCH_TRACING === 'compare') {
      // the same, the API with tracing on (an OTLP endpoint served here, every trace sampled): reads are
      // not traced, so this is what tracing's presence costs them (docs/operations.md#tracing)
      const sink = await startTraceSink();
      try {
        const traced = await measure(apiKey, sink.env);
        console.log(
          JSON.stringify({
            benchmark: 'tweets-list: tracing on / off',
            untracedRps: untraced.service.wrk.rps,
            tracedRps: traced.service.wrk.rps,
            tracedToUntraced: ratio(traced.service.wrk.rps, untraced.service.wrk.rps),
            target: `>= ${TRACED_TARGET}`,
          }),
        );
      } finally {
        await sink.close();
      }
    }
  } finally {
    await dropDatabaseUnlessKept();
  }
}

/** Reads with tracing on, to the same API with it off. */
const TRACED_TARGET = 0.85;

async function measure(apiKey, extraEnv = {}) {
  const api = await startApi(extraEnv);
  try {
    const url = `${BENCH_URL}/api/sdk/tweets?page=1&limit=20`;
    const probe = await fetch(url, { headers: { 'x-api-key': apiKey } });
    const body = await probe.json();
    if (probe.status !== 200 || body.data.total !== TWEETS_PER_COMMUNITY || body.data.items.length !== 20) {
      throw new Error(`unexpected answer ${probe.status}: ${JSON.stringify(body).slice(0, 300)}`);
    }
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
    const floor = figures(out.lines, FLOOR_READ_LINE);
    const service = figures(out.lines, 'compare:');
    service.peakRssMiB = Math.max(service.peakRssMiB, peakRssMiB(api.pid));
    const r = ratio(service.wrk.rps, floor.wrk.rps);
    const rss = ratio(service.peakRssMiB, floor.peakRssMiB);
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
        pass: r >= TARGET_RATIO && service.wrk.p99Ms < TARGET_P99_MS && rss <= TARGET_RSS_RATIO,
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
