#!/usr/bin/env node
// `npm start`: everything a fresh machine needs to run the service locally, in one command.
//   1. build, when dist/main.js is missing;
//   2. create the database named in DATABASE_URL when it does not exist;
//   3. apply the migrations (prisma migrate deploy);
//   4. seed the demo when the database has no community, printing the logins and the API key;
//   5. run the API and the worker as child processes, print the URL, forward SIGINT/SIGTERM to
//      both, and exit when either of them exits.
// START_DIST=<dir> runs an already compiled tree instead of dist/ (and never builds).
/* eslint-disable @typescript-eslint/no-require-imports -- a plain CommonJS script, run before any build */
/* global fetch */
'use strict';

const { spawn, spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/community_platform';

function say(line) {
  process.stdout.write(`[start] ${line}\n`);
}

function fail(message) {
  process.stderr.write(`[start] ${message}\n`);
  process.exit(1);
}

function loadDotEnv() {
  const file = path.join(root, '.env');
  // Variables already in the environment win over .env, as in the service itself.
  if (existsSync(file)) process.loadEnvFile(file);
}

function run(command, args, what) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: process.env });
  if (result.status !== 0) fail(`${what} failed (exit code ${result.status ?? result.signal})`);
}

function ensureBuilt(dist) {
  if (existsSync(path.join(dist, 'main.js'))) return;
  if (process.env.START_DIST) fail(`START_DIST=${process.env.START_DIST} has no main.js`);
  say('dist/main.js is missing: building (npm run build)');
  run(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build'], 'The build');
}

/** Creates the database of DATABASE_URL when it does not exist, connecting to the `postgres` database. */
async function ensureDatabase(databaseUrl) {
  const { Client } = require('pg');
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!name) fail('DATABASE_URL names no database');
  const adminUrl = new URL(databaseUrl);
  adminUrl.pathname = '/postgres';
  const admin = new Client({ connectionString: adminUrl.toString() });
  try {
    await admin.connect();
  } catch (err) {
    fail(`Cannot reach PostgreSQL at ${url.host}: ${err.message}. Is it running? (DATABASE_URL)`);
  }
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      await admin.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
      say(`created database ${name}`);
    }
  } catch (err) {
    // Without the right to create databases the migration step below says what is wrong.
    say(`could not check or create database ${name}: ${err.message}`);
  } finally {
    await admin.end();
  }
}

function migrate() {
  say('applying migrations (prisma migrate deploy)');
  run(
    process.execPath,
    [require.resolve('prisma/build/index.js', { paths: [root] }), 'migrate', 'deploy'],
    'The migration',
  );
}

async function seedWhenEmpty(dist) {
  const { seedIfEmpty, formatSeedReport } = require(path.join(dist, 'cli', 'seed.js'));
  const seed = await seedIfEmpty();
  if (seed) {
    for (const line of formatSeedReport(seed)) say(line);
  } else {
    say('the database already has communities: demo not seeded (npm run db:seed -- --force redoes the demo)');
  }
}

function startChildren(dist) {
  const children = {
    api: spawn(process.execPath, [path.join(dist, 'main.js')], {
      cwd: root,
      stdio: 'inherit',
      env: process.env,
    }),
    worker: spawn(process.execPath, [path.join(dist, 'worker.js')], {
      cwd: root,
      stdio: 'inherit',
      env: process.env,
    }),
  };
  let stopping = false;
  const stopAll = (signal) => {
    for (const child of Object.values(children)) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    }
  };
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      stopping = true;
      say(`${signal}: stopping the API and the worker`);
      stopAll(signal);
    });
  }
  let exited = 0;
  let firstCode = 0;
  for (const [name, child] of Object.entries(children)) {
    child.on('exit', (code, signal) => {
      exited += 1;
      if (exited === 1) {
        // A child that dies on its own is a failure, even with exit code 0.
        firstCode = stopping ? (code ?? 0) : code || 1;
        if (!stopping) say(`the ${name} exited (${code ?? signal}): stopping the other process`);
        stopping = true;
        stopAll('SIGTERM');
      }
      if (exited === 2) process.exit(firstCode);
    });
  }
  return children;
}

/** Waits until /api/health answers 200, then prints where the service is. */
async function announce(port) {
  const base = `http://localhost:${port}/api`;
  for (let i = 0; i < 120; i++) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/health`);
      if (res.ok) {
        say(`API ready at ${base} (OpenAPI UI at ${base}/docs); the worker delivers webhooks`);
        return;
      }
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  say(`the API did not answer ${base}/health within 60 s; see its log above`);
}

async function main() {
  loadDotEnv();
  process.env.DATABASE_URL ??= DEFAULT_DATABASE_URL;
  const dist = path.resolve(root, process.env.START_DIST || 'dist');
  ensureBuilt(dist);
  await ensureDatabase(process.env.DATABASE_URL);
  migrate();
  await seedWhenEmpty(dist);
  startChildren(dist);
  await announce(process.env.PORT || '3000');
}

main().catch((err) => fail(err && err.stack ? err.stack : String(err)));
