// Authentication benchmark: POST /api/auth/login and GET /api/admin/sdk/me (X-Api-Key and Bearer),
// 16 connections, 3 s warm-up then 15 s measured, against a running API (BENCH_URL, default
// http://127.0.0.1:3000). It makes its own user (directly in BENCH_DATABASE_URL / DATABASE_URL, since
// no route creates users), then its community and API key through the API.
//   node bench/auth.mjs
// argon2id makes login CPU-bound by design (its cost is a setting, ARGON2_OPTIONS). The floor has no login:
// no ratio. BENCH_RECORD=1 (or --record) appends one line per scenario to bench/results/auth.jsonl
// (lib/record.mjs).
/* global fetch */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { record } from './lib/record.mjs';

const require = createRequire(import.meta.url);
const autocannon = require('autocannon');
// The service's own hashing parameters (from the build), so login costs what it costs in production.
const { PasswordService } = require('../dist/modules/auth/password.service.js');
const { Client } = require('pg');

const BASE = (process.env.BENCH_URL ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
const DATABASE_URL =
  process.env.BENCH_DATABASE_URL ??
  process.env.DATABASE_URL ??
  'postgresql://postgres@127.0.0.1:5432/community_platform';
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const WARMUP_S = Number(process.env.BENCH_WARMUP ?? 3);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 15);

async function api(method, path, { token, body } = {}) {
  const res = await fetch(`${BASE}${path}`, {
    method,
    headers: {
      accept: 'application/json',
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

async function setUp() {
  const suffix = randomBytes(4).toString('hex');
  const email = `bench-${suffix}@bench.test`;
  const password = `bench-password-${suffix}`;
  const db = new Client({ connectionString: DATABASE_URL });
  await db.connect();
  await db.query(
    `INSERT INTO users (id, email, name, password_hash, updated_at) VALUES (gen_random_uuid(), $1, 'Bench', $2, now())`,
    [email, await new PasswordService().hash(password)],
  );
  await db.end();
  let { accessToken } = await api('POST', '/api/auth/login', { body: { email, password } });
  const community = await api('POST', '/api/admin/sdk/communities', {
    token: accessToken,
    body: { name: 'Bench', slug: `bench-${suffix}` },
  });
  ({ accessToken } = await api('POST', '/api/auth/login', {
    body: { email, password, communityId: community.id },
  }));
  const { key } = await api('POST', '/api/admin/sdk/api-keys', {
    token: accessToken,
    body: { name: 'bench' },
  });
  return { email, password, accessToken, key };
}

function run(options, duration) {
  return new Promise((resolve, reject) => {
    autocannon({ connections: CONNECTIONS, duration, ...options }, (err, result) =>
      err ? reject(err) : resolve(result),
    );
  });
}

async function measure(name, options) {
  await run(options, WARMUP_S);
  const r = await run(options, DURATION_S);
  return {
    scenario: name,
    'req/s': Math.round(r.requests.average),
    'p50 ms': r.latency.p50,
    'p99 ms': r.latency.p99,
    requests: r.requests.total,
    'non-2xx': r.non2xx,
    errors: r.errors + r.timeouts,
  };
}

const { email, password, accessToken, key } = await setUp();
const rows = [];
rows.push(
  await measure('POST /api/auth/login', {
    url: `${BASE}/api/auth/login`,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ email, password }),
  }),
);
rows.push(
  await measure('GET /api/admin/sdk/me (X-Api-Key)', {
    url: `${BASE}/api/admin/sdk/me`,
    headers: { 'x-api-key': key, accept: 'application/json' },
  }),
);
rows.push(
  await measure('GET /api/admin/sdk/me (Bearer)', {
    url: `${BASE}/api/admin/sdk/me`,
    headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
  }),
);
console.log(`${BASE}: ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${DURATION_S} s`);
console.table(rows);
record(
  'auth',
  rows.map((row) => ({
    series: row.scenario,
    unit: 'req/s (autocannon)',
    service: row['req/s'],
    p50Ms: row['p50 ms'],
    p99Ms: row['p99 ms'],
    connections: CONNECTIONS,
  })),
);
if (rows.some((r) => r['non-2xx'] > 0 || r.errors > 0)) process.exitCode = 1;
