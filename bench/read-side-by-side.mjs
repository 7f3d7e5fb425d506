// Benchmark: the tweets page's CPU time per request, the API beside the floor's `best` server on the
// same core in the same seconds. On these machines a core's speed moves within minutes, so two
// servers measured one after the other (bench/tweets-list.mjs) often compare two different machines.
// Here both run pinned to core 0 (every thread: taskset -a), each loaded by its own wrk (16
// connections, pinned to core 1) at the same time, and each one's CPU time over the same window is
// divided by the requests it answered. For a server that saturates its core, as both do here,
// requests per second are the inverse of that time, so floor / service is the speed ratio
// (target >= 0.95), measured under the same conditions for both. Prints one JSON line: per round
// the microseconds per request of each and their ratio, and each one's p50 and p99 as its wrk saw
// them (service / floor for the p99: the same core, the same seconds), then the medians.
//
//   npm run build && node bench/read-side-by-side.mjs   # BENCH_ROUNDS (5), BENCH_SECONDS (10)
//   BENCH_ROUTE=/api/sdk/members?limit=20 node bench/read-side-by-side.mjs   # another read, same floor
//
// The floor's database (floor_read) is seeded by one short round of ../shared/bench-floor's
// floor-read.mjs (its `best` variant, KEEP_DB=1) and dropped at the end; its server is started here
// from that folder with its `best` settings and one key of our own (only the key's sha256 is stored,
// as the floor stores its own). BENCH_RECORD=1 (or --record) appends the run to
// bench/results/read-side-by-side.jsonl (lib/record.mjs). Without the floor (FLOOR_DIR missing) the
// service runs alone on core 0 and its CPU time per request is printed without a ratio.
//
// Memory: each server's lifetime peak RSS (VmHWM: its start-up, then every round) beside the other's
// (target: the service's <= TARGET_RSS_RATIO of the floor's). BENCH_LOGIN=1 logs the community's owner in
// once before the rounds, as an outside trial does to get its API key: a login's argon2 block then counts
// in the service's peak, as it would in theirs (the floor logs nobody in).
import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import pg from 'pg';
import { fetch } from 'undici';
import { insertApiKey } from './lib/api-key.mjs';
import { ownChild } from './lib/children.mjs';
import { processCpuMs, until } from './lib/delivery-harness.mjs';
import { floorDir, floorPresent, ratio, runFloor } from './lib/floor.mjs';
import { record } from './lib/record.mjs';
import {
  BENCH_URL,
  bearerFor,
  DATABASE_URL,
  dropDatabaseUnlessKept,
  ensureDatabase,
  seed,
  peakRssMiB,
  startApi,
  TARGET_RATIO,
  TARGET_RSS_RATIO,
  ROOT,
} from './lib/read-bench.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const FLOOR_DB = 'floor_read';
const FLOOR_PORT = Number(process.env.BENCH_FLOOR_PORT ?? 3100);
const PAGE = 'page=1&limit=20';
/** The service's read measured; the floor's is always its tweets page, the read bar of every route. */
const SERVICE_PATH = process.env.BENCH_ROUTE ?? `/api/sdk/tweets?${PAGE}`;
/** The floor's community of 100,000 tweets (floor-read.mjs seeds three). */
const FLOOR_COMMUNITY = '11111111-1111-4111-8111-111111111111';
const LOGIN = process.env.BENCH_LOGIN === '1';
const OWNER_PASSWORD = 'bench password of the owner';

const floorUrl = () => {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${FLOOR_DB}`;
  return url.toString();
};

/** wrk's latency figure in ms ("99%    12.34ms", "1.20s", "850.00us"). */
function wrkMs(out, percentile) {
  const match = new RegExp(`^\\s*${percentile}%\\s+([\\d.]+)(us|ms|s)\\s*$`, 'm').exec(out);
  if (!match) throw new Error(`no ${percentile}% latency in wrk's output: ${out}`);
  return Number(match[1]) * { us: 0.001, ms: 1, s: 1000 }[match[2]];
}

/** wrk on core 1 for `seconds`: resolves with the requests it completed and their p50 and p99 in ms. */
function wrk(url, key, seconds) {
  return new Promise((resolve, reject) => {
    const child = ownChild(
      spawn('taskset', [
        ...['-c', '1', 'wrk', '--latency', '-c16', '-t1', `-d${seconds}s`],
        ...['-H', `x-api-key: ${key}`, url],
      ]),
    );
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    // 'close', not 'exit': the output is all read only then
    child.on('close', (code) => {
      const requests = /(\d+) requests in/.exec(out);
      const errors = /Non-2xx or 3xx responses: (\d+)/.exec(out);
      if (code !== 0 || !requests) return reject(new Error(`wrk exited ${code}: ${out}`));
      if (errors) return reject(new Error(`${url}: ${errors[1]} answers that were not 2xx`));
      resolve({ requests: Number(requests[1]), p50Ms: wrkMs(out, 50), p99Ms: wrkMs(out, 99) });
    });
  });
}

async function startFloorServer() {
  const child = ownChild(
    spawn(process.execPath, [join(floorDir(), 'read-server.mjs')], {
      env: { ...process.env, DATABASE_URL: floorUrl(), PORT: String(FLOOR_PORT), BEST: '1', COUNT: 'cached' },
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  const answers = () => fetch(`http://127.0.0.1:${FLOOR_PORT}/ping`).catch(() => undefined);
  await until(
    "the floor's server",
    async () => {
      if (child.exitCode !== null) throw new Error(`the floor's server exited ${child.exitCode}`);
      return answers();
    },
    30_000,
    100,
  );
  return child;
}

async function dropFloorDatabase() {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${FLOOR_DB}" WITH (FORCE)`);
  await admin.end();
}

/** The floor's database seeded by one short round of its own, with one key of ours; returns the key. */
async function prepareFloor() {
  // one short round of the floor seeds its database and checks its server (kept for the rounds here)
  await runFloor(
    'floor-read.mjs',
    { VARIANTS: 'best', ROUNDS: '1', DURATION: '1', WARMUP: '1', KEEP_DB: '1' },
    { allLines: true },
  );
  const floorKey = `floor_sk_${randomBytes(24).toString('hex')}`;
  const floorDb = new pg.Client({ connectionString: floorUrl() });
  await floorDb.connect();
  await floorDb.query(`INSERT INTO api_keys (community_id, prefix, key_hash) VALUES ($1, 'floor_sk', $2)`, [
    FLOOR_COMMUNITY,
    createHash('sha256').update(floorKey).digest('hex'),
  ]);
  await floorDb.end();
  return floorKey;
}

/** The owner's password, for BENCH_LOGIN (hashed as the build hashes it). */
async function setOwnerPassword(db, ownerId) {
  const require = createRequire(import.meta.url);
  const { PasswordService } = require(join(ROOT, 'dist/modules/auth/password.service.js'));
  const hash = await new PasswordService().hash(OWNER_PASSWORD);
  await db.query('UPDATE users SET password_hash = $1 WHERE id = $2', [hash, ownerId]);
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  await ensureDatabase();
  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  const { communityId, ownerId } = await seed(db);
  const serviceKey = await insertApiKey(db, communityId, ownerId);
  if (LOGIN) await setOwnerPassword(db, ownerId);
  await db.end();

  const withFloor = floorPresent();
  const floorKey = withFloor ? await prepareFloor() : null;
  const api = await startApi();
  const floor = withFloor ? await startFloorServer() : null;
  const servers = floor ? [api, floor] : [api];
  try {
    if (LOGIN) await bearerFor({ email: 'owner@bench.test', password: OWNER_PASSWORD, communityId });
    for (const { pid } of servers) execFileSync('taskset', ['-a', '-p', '-c', '0', String(pid)]);
    const serviceUrl = `${BENCH_URL}${SERVICE_PATH}`;
    const floorPage = `http://127.0.0.1:${FLOOR_PORT}/tweets?${PAGE}`;
    const loads = [[serviceUrl, serviceKey], ...(floor ? [[floorPage, floorKey]] : [])];
    for (const [url, key] of loads) {
      const check = await fetch(url, { headers: { 'x-api-key': key } });
      const body = await check.json();
      const page = url.includes('/tweets?');
      if (check.status !== 200 || (page && (body.data.items.length !== 20 || body.data.total !== 100_000)))
        throw new Error(`${url} answered ${check.status} ${JSON.stringify(body).slice(0, 200)}`);
    }
    const rounds = [];
    for (let round = 0; round < ROUNDS; round++) {
      // warm-up: the first round's as long as a round (both servers' JIT), then 3 s
      const warmUp = round === 0 ? SECONDS : 3;
      await Promise.all(loads.map(([url, key]) => wrk(url, key, warmUp)));
      const before = servers.map(({ pid }) => processCpuMs(pid));
      const [serviceRun, floorRun] = await Promise.all(loads.map(([url, key]) => wrk(url, key, SECONDS)));
      const serviceUs = ((processCpuMs(api.pid) - before[0]) * 1000) / serviceRun.requests;
      if (!floor) {
        rounds.push({
          serviceUsPerRequest: Math.round(serviceUs),
          requests: { service: serviceRun.requests },
          p50Ms: { service: serviceRun.p50Ms },
          p99Ms: { service: serviceRun.p99Ms },
        });
      } else {
        const floorUs = ((processCpuMs(floor.pid) - before[1]) * 1000) / floorRun.requests;
        rounds.push({
          serviceUsPerRequest: Math.round(serviceUs),
          floorUsPerRequest: Math.round(floorUs),
          ratio: ratio(floorUs, serviceUs),
          requests: { service: serviceRun.requests, floor: floorRun.requests },
          // both servers share core 0, so each one's latency holds the other's turns on it: the two
          // compare with each other, not with a server that has a core to itself
          p50Ms: { service: serviceRun.p50Ms, floor: floorRun.p50Ms },
          p99Ms: { service: serviceRun.p99Ms, floor: floorRun.p99Ms },
          p99Ratio: ratio(serviceRun.p99Ms, floorRun.p99Ms),
        });
      }
      console.error(JSON.stringify(rounds.at(-1)));
    }
    const peakRss = { service: peakRssMiB(api.pid), floor: floor ? peakRssMiB(floor.pid) : undefined };
    const peakRssRatio = floor ? ratio(peakRss.service, peakRss.floor) : undefined;
    const medianRatio = floor ? median(rounds.map((r) => r.ratio)) : undefined;
    const medianP99Ratio = floor ? median(rounds.map((r) => r.p99Ratio)) : undefined;
    console.log(
      JSON.stringify({
        benchmark: 'read-side-by-side',
        date: new Date().toISOString().slice(0, 10),
        route: floor
          ? `GET ${SERVICE_PATH} (X-Api-Key) beside the floor's best tweets page, both on core 0, 16 connections each`
          : `GET ${SERVICE_PATH} (X-Api-Key) alone on core 0 (no floor), 16 connections`,
        rounds,
        medianRatio,
        medianP99Ratio,
        peakRssMiB: peakRss,
        peakRssRatio,
        serviceLoggedIn: LOGIN,
        target: `floor / service CPU per request >= ${TARGET_RATIO}; peak RSS <= ${TARGET_RSS_RATIO}x the floor's`,
        pass: floor ? medianRatio >= TARGET_RATIO : undefined,
      }),
    );
    // the ratio is floor / service CPU time per request: above 1, the service spent less
    record('read-side-by-side', [
      {
        series: `GET ${SERVICE_PATH.replace(/\?.*$/, '')}`,
        unit: 'µs of CPU per request, median of the rounds',
        rounds: ROUNDS,
        service: median(rounds.map((r) => r.serviceUsPerRequest)),
        floor: floor ? median(rounds.map((r) => r.floorUsPerRequest)) : undefined,
        ratio: medianRatio,
        target: `>= ${TARGET_RATIO}`,
        p99Ms: median(rounds.map((r) => r.p99Ms.service)),
        floorP99Ms: floor ? median(rounds.map((r) => r.p99Ms.floor)) : undefined,
        p99Ratio: medianP99Ratio,
        peakRssMiB: peakRss.service,
        floorPeakRssMiB: peakRss.floor,
        peakRssRatio,
        loggedIn: LOGIN,
      },
    ]);
  } finally {
    for (const server of servers) server.kill('SIGTERM');
    await Promise.all(servers.map((child) => new Promise((r) => child.once('exit', r))));
    if (floor) await dropFloorDatabase();
    await dropDatabaseUnlessKept();
  }
}

await main();
