// Shared pieces of the delivery benchmarks (bench/delivery-*.mjs): a throw-away database, a seeded
// community with signed endpoints, a local receiver, and the real worker run as a child process
// from the compiled build (`npm run build` first):
//
//   node bench/delivery-throughput.mjs
//
// Env: WORKER_DIST (default dist/), BENCH_ADMIN_URL (default
// postgresql://postgres@127.0.0.1:5432/postgres), REDIS_URL (default redis://127.0.0.1:6379). The
// worker runs with its production defaults (WORKER_CONCURRENCY 50, DATABASE_POOL_SIZE 10,
// OUTBOX_POLL_INTERVAL 1s) except WEBHOOK_ALLOW_INSECURE_TARGETS=true for the local receiver.
import { performance } from 'node:perf_hooks';
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { deleteRunKeys } from '../../scripts/redis-run-keys.js';
import { ownChild } from './children.mjs';
import { launchNodeFlags, mallocEnvironment } from './launch-settings.mjs';

const require = createRequire(import.meta.url);
const { monotonicFactory } = require('ulid');

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const WORKER_DIST = process.env.WORKER_DIST ?? join(ROOT, 'dist');
const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const nextUlid = monotonicFactory();
/** The run's own WEBHOOK_SECRET_ENCRYPTION_KEY: the seed encrypts with it and the worker decrypts. */
const ENCRYPTION_KEY = randomBytes(32).toString('base64');

/** The run's encryption key, for a process the bench starts itself (an API) beside the harness's workers. */
export function benchEncryptionKey() {
  return ENCRYPTION_KEY;
}

export function compiled(path) {
  const file = join(WORKER_DIST, path);
  if (!existsSync(file))
    throw new Error(`${file} is missing: compile first (see bench/lib/delivery-harness.mjs)`);
  return require(file);
}

/** A fresh, migrated database and Redis prefix for one benchmark run; `drop()` removes both. */
export async function benchEnvironment() {
  const runId = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const name = `cp_bench_delivery_${runId}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  // BENCH_DB_SOCKET=/var/run/postgresql: the worker reaches PostgreSQL over its Unix socket
  const databaseUrl = process.env.BENCH_DB_SOCKET
    ? `${url.toString()}?host=${encodeURIComponent(process.env.BENCH_DB_SOCKET)}`
    : url.toString();
  execFileSync(process.execPath, [resolve(ROOT, 'node_modules/prisma/build/index.js'), 'migrate', 'deploy'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const db = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  const prefix = `cp_bench_${runId}`;
  return {
    db,
    databaseUrl,
    prefix,
    drop: async () => {
      await db.end();
      const a = new pg.Client({ connectionString: ADMIN_URL });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await a.end();
      await deleteRunKeys(REDIS_URL, prefix);
    },
  };
}

/** A community with `count` endpoints subscribed to tweet.created, each with one encrypted secret. */
export async function seedEndpoints(db, count, targetUrl) {
  const { SecretCipher } = compiled('common/crypto/secret-cipher.js');
  const cipher = new SecretCipher(Buffer.from(ENCRYPTION_KEY, 'base64'));
  const communityId = randomUUID();
  await db.query(
    `INSERT INTO communities (id, slug, name, plan, updated_at) VALUES ($1, $2, 'Bench', 'PRO', now())`,
    [communityId, `bench-${communityId.slice(0, 8)}`],
  );
  const endpointIds = Array.from({ length: count }, () => randomUUID());
  await db.query(
    `INSERT INTO webhook_endpoints (id, community_id, url, events, updated_at)
     SELECT unnest($1::uuid[]), $2, $3, ARRAY['tweet.created'], now()`,
    [endpointIds, communityId, targetUrl],
  );
  const sealed = endpointIds.map(() => cipher.encrypt(`whsec_${randomBytes(32).toString('base64')}`));
  await db.query(
    `INSERT INTO webhook_secrets (id, community_id, endpoint_id, key_id, iv, ciphertext, auth_tag)
     SELECT gen_random_uuid(), $1, unnest($2::uuid[]), $3, unnest($4::bytea[]), unnest($5::bytea[]), unnest($6::bytea[])`,
    [
      communityId,
      endpointIds,
      cipher.keyId,
      sealed.map((s) => Buffer.from(s.iv)),
      sealed.map((s) => Buffer.from(s.ciphertext)),
      sealed.map((s) => Buffer.from(s.authTag)),
    ],
  );
  return { communityId, endpointIds };
}

/**
 * Writes `count` tweet.created events (about 500-byte bodies) in one transaction; returns their ids.
 * `communityIds` may be one id or several: the events then take them in turn (round-robin in
 * outbox order, as many communities' writes interleave in a real service).
 */
export async function insertEvents(db, communityIds, count, { traced = false } = {}) {
  const communities = Array.isArray(communityIds) ? communityIds : [communityIds];
  const ids = [];
  const owners = [];
  const payloads = [];
  for (let n = 0; n < count; n++) {
    const id = `msg_${nextUlid()}`;
    const communityId = communities[n % communities.length];
    ids.push(id);
    owners.push(communityId);
    payloads.push(
      JSON.stringify({
        id,
        type: 'tweet.created',
        timestamp: new Date().toISOString(),
        communityId,
        data: {
          tweet: {
            id: randomUUID(),
            communityId,
            authorId: randomUUID(),
            content: 'x'.repeat(280),
            likeCount: 0,
          },
        },
      }),
    );
  }
  // traced: each event carries a sampled W3C traceparent, as one raised by a traced API request does,
  // so the worker continues its trace (a relay span, an attempt span per send)
  const traceparents = ids.map(() =>
    traced ? `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01` : null,
  );
  await db.query(
    `INSERT INTO outbox_events (community_id, message_id, event_type, payload, traceparent)
     SELECT unnest($1::uuid[]), unnest($2::text[]), 'tweet.created', unnest($3::jsonb[]), unnest($4::text[])`,
    [owners, ids, payloads, traceparents],
  );
  return ids;
}

/** A local target answering 200 and noting when each webhook-id first arrived. */
/**
 * An OTLP/HTTP (JSON) traces endpoint that accepts every export and counts the spans in it, for the
 * benches that run the service with tracing on: `env` is what a process needs to export to it.
 */
export async function startTraceSink() {
  let spans = 0;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        for (const resource of body.resourceSpans ?? [])
          for (const scope of resource.scopeSpans ?? []) spans += (scope.spans ?? []).length;
      } catch {
        // not JSON: counted as nothing
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_TRACES_SAMPLER: 'always_on',
    },
    spans: () => spans,
    close: () => new Promise((r) => server.close(r)),
  };
}

export async function startReceiver() {
  const firstSeen = new Map();
  let requests = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests += 1;
      const id = req.headers['webhook-id'];
      if (!firstSeen.has(id)) firstSeen.set(id, performance.timeOrigin + performance.now());
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    firstSeen,
    requests: () => requests,
    close: () => new Promise((r) => (server.closeAllConnections(), server.close(r))),
  };
}

/** `node <build>/worker.js` (what `npm run start:worker` runs) against the bench database. */
export async function startWorker(env) {
  // the launchers' node flags first; BENCH_WORKER_NODE_ARGS (e.g. --cpu-prof) after, so it can override them
  const nodeArgs = [
    ...launchNodeFlags(WORKER_DIST, 'worker'),
    ...(process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean),
  ];
  const child = ownChild(
    spawn(process.execPath, [...nodeArgs, join(WORKER_DIST, 'worker.js')], {
      env: {
        ...mallocEnvironment(WORKER_DIST),
        ...process.env,
        NODE_PATH: join(ROOT, 'node_modules'),
        NODE_ENV: 'development',
        LOG_LEVEL: 'warn',
        WEBHOOK_ALLOW_INSECURE_TARGETS: 'true',
        WEBHOOK_SECRET_ENCRYPTION_KEY: ENCRYPTION_KEY,
        REDIS_URL,
        // several workers run side by side (BENCH_WORKERS): each would take the worker's metrics port
        METRICS_PORT: '0',
        ...env,
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    }),
  );
  const exited = new Promise((r) => child.on('exit', r));
  // let it connect and start its relay before the clock starts
  await new Promise((r) => setTimeout(r, 1500));
  return {
    pid: child.pid,
    /** peak resident set size of the worker so far, in MiB (VmHWM) */
    peakRssMiB: () => {
      const line = readFileSync(`/proc/${child.pid}/status`, 'utf8')
        .split('\n')
        .find((l) => l.startsWith('VmHWM'));
      return Math.round(Number(line.replace(/\D+/g, '')) / 1024);
    },
    /** CPU time (user + system) the worker has used so far, in ms */
    cpuMs: () => {
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks of 10 ms
    },
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export async function until(what, probe, timeoutMs, intervalMs = 20) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** CPU time (user + system, ms) of a process, or 0 once it is gone. */
export function processCpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks of 10 ms
  } catch {
    return 0;
  }
}

/**
 * CPU used by the PostgreSQL backends of the bench database between `start()` and `stop()`, in ms
 * (the worker's pool connections live through a run; a backend that ends meanwhile is left out).
 */
export function databaseCpu(db) {
  let before = new Map();
  const backends = async () =>
    (await db.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`)).rows.map(
      (r) => r.pid,
    );
  return {
    start: async () => {
      before = new Map((await backends()).map((pid) => [pid, processCpuMs(pid)]));
    },
    stop: async () => {
      let ms = 0;
      for (const pid of await backends()) ms += processCpuMs(pid) - (before.get(pid) ?? 0);
      return ms;
    },
  };
}

/**
 * Row writes on webhook_deliveries between `start()` and `stop()` (pg_stat_user_tables): inserts,
 * updates and how many updates were HOT (no new index entry). Every insert and every other update
 * writes one entry into each of the table's indexes (partial ones only for rows they cover, so
 * `indexEntriesWritten` is an upper bound).
 */
export function deliveryTableStats(db) {
  const read = async () => {
    // the statistics collector publishes with a delay; ask for a fresh snapshot
    await db.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await db.query(
      `SELECT n_tup_ins::int AS ins, n_tup_upd::int AS upd, n_tup_hot_upd::int AS hot,
              (SELECT count(*)::int FROM pg_index i WHERE i.indrelid = t.relid) AS indexes
       FROM pg_stat_user_tables t WHERE relname = 'webhook_deliveries'`,
    );
    return rows[0];
  };
  let before;
  return {
    start: async () => {
      before = await read();
    },
    stop: async () => {
      // the collector flushes a backend's counters at most every second (PostgreSQL 15)
      await new Promise((r) => setTimeout(r, 1_500));
      const after = await read();
      const updates = after.upd - before.upd;
      const hot = after.hot - before.hot;
      return {
        inserts: after.ins - before.ins,
        updates,
        hotUpdates: hot,
        indexes: after.indexes,
        indexEntriesWritten: (after.ins - before.ins + updates - hot) * after.indexes,
      };
    },
  };
}

/**
 * BENCH_PG_SAMPLE=1: a sampling profile of the bench database's backends (pg_stat_statements needs
 * a server restart to load): every few ms, what each active backend runs (the statement's first
 * words) and what it waits on. `stop()` returns the shares of the samples, most frequent first.
 */
export function databaseSampler(databaseUrl) {
  if (!process.env.BENCH_PG_SAMPLE) return { start: async () => {}, stop: async () => undefined };
  const client = new pg.Client({ connectionString: databaseUrl });
  const counts = new Map();
  let samples = 0;
  let running = false;
  let loop;
  return {
    start: async () => {
      await client.connect();
      running = true;
      loop = (async () => {
        while (running) {
          const { rows } = await client.query(
            `SELECT regexp_replace(left(query, 90), '\\s+', ' ', 'g') AS q,
                    coalesce(wait_event_type || ':' || wait_event, 'CPU') AS w
             FROM pg_stat_activity
             WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()`,
          );
          samples++;
          for (const r of rows) {
            const key = `${r.w} | ${r.q}`;
            counts.set(key, (counts.get(key) ?? 0) + 1);
          }
          await new Promise((r) => setTimeout(r, 2));
        }
      })();
    },
    stop: async () => {
      running = false;
      await loop;
      await client.end();
      return [...counts]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 15)
        .map(([k, n]) => `${((100 * n) / samples).toFixed(1)}% ${k}`);
    },
  };
}

/**
 * Writes tweet.created events of `communityId` at `rate` per second, each in its own autocommit INSERT,
 * for `seconds` or until `stop()` answers true (asked before each event); returns messageId →
 * wall-clock ms just before its INSERT (the clock the receiver's `firstSeen` reads).
 */
export async function steadyStream(db, communityId, { rate, seconds = Infinity, stop = () => false }) {
  const sentAt = new Map();
  const pending = [];
  const interval = 1000 / rate;
  const start = performance.now();
  for (let n = 0; n < seconds * rate && !stop(); n++) {
    const due = start + n * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const at = performance.timeOrigin + performance.now();
    pending.push(insertEvents(db, communityId, 1).then(([id]) => sentAt.set(id, at)));
  }
  await Promise.all(pending);
  return sentAt;
}

/** p50, p95, p99 and the maximum of ascending latencies (ms), one decimal. */
export function latencyFigures(sorted) {
  const ms = (v) => Number(v.toFixed(1));
  return {
    p50Ms: ms(percentile(sorted, 50)),
    p95Ms: ms(percentile(sorted, 95)),
    p99Ms: ms(percentile(sorted, 99)),
    maxMs: ms(sorted[sorted.length - 1]),
  };
}

export async function countSucceeded(db) {
  const { rows } = await db.query(
    `SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'SUCCESS'`,
  );
  return rows[0].n;
}

export function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
