#!/usr/bin/env node
// `npm start`: everything a fresh machine needs to run the service locally, in one command.
//   1. build, when dist/main.js is missing;
//   2. validate every setting (nothing touches the database before the configuration is valid);
//   3. create the database named in DATABASE_URL when it does not exist;
//   4. apply the migrations (prisma migrate deploy);
//   5. seed the demo when the database has no community, and bring the demo state file (outside
//      the repository: logins, API key, the receiver endpoint's secret) up to date;
//   6. run the API and the worker as child processes, forward SIGINT/SIGTERM to both, exit when
//      either of them exits; once BOTH said they are ready (IPC), print the banner.
// Outside production, WEBHOOK_ALLOW_INSECURE_TARGETS defaults to true for the two children (only
// when it is unset), so the demo's http://127.0.0.1 receiver endpoint can be delivered to.
// START_DIST=<dir> runs an already compiled tree instead of dist/ (and never builds).
/* eslint-disable @typescript-eslint/no-require-imports -- a plain CommonJS script, run before any build */
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

/**
 * Outside production, an unset WEBHOOK_ALLOW_INSECURE_TARGETS becomes true for this process and
 * its children (never written anywhere else); returns how the setting came to be, for the banner.
 */
function defaultInsecureTargets() {
  const value = process.env.WEBHOOK_ALLOW_INSECURE_TARGETS;
  if ((process.env.NODE_ENV ?? 'development') === 'production') return 'off';
  if (value === undefined || value === '') {
    process.env.WEBHOOK_ALLOW_INSECURE_TARGETS = 'true';
    return 'set-by-start';
  }
  return value === 'true' || value === '1' ? 'set' : 'off';
}

/** Every setting, checked with the service's own rules before the database is touched. */
function validateConfig(dist) {
  const { loadConfig, ConfigValidationError } = require(path.join(dist, 'config', 'app-config.js'));
  try {
    return loadConfig(process.env).config;
  } catch (err) {
    if (err instanceof ConfigValidationError) fail(err.message);
    throw err;
  }
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

async function prepareDemo(dist) {
  const { prepareDemo } = require(path.join(dist, 'cli', 'seed.js'));
  const demo = await prepareDemo();
  if (demo.seeded) say(`seeded the demo (kept in ${demo.statePath}; npm run db:seed -- --force redoes it)`);
  else if (!demo.state) say('the database already has communities but no demo: none seeded');
  return demo;
}

/** Starts the API and the worker; `onReady` runs once both sent their ready message over IPC. */
function startChildren(dist, onReady) {
  // each process's node flags and glibc's malloc settings (src/bootstrap/memory-flags.ts); the
  // caller's own environment wins
  const { LAUNCH_NODE_FLAGS, MALLOC_ENVIRONMENT } = require(path.join(dist, 'bootstrap', 'memory-flags.js'));
  const spawnChild = (role, file) =>
    spawn(process.execPath, [...LAUNCH_NODE_FLAGS[role], path.join(dist, file)], {
      cwd: root,
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
      env: { ...MALLOC_ENVIRONMENT, ...process.env },
    });
  const children = { api: spawnChild('api', 'main.js'), worker: spawnChild('worker', 'worker.js') };
  const ready = new Set();
  for (const child of Object.values(children)) {
    child.on('message', (message) => {
      if (!message || message.type !== 'ready') return;
      ready.add(message.process);
      if (ready.size === 2) onReady();
    });
  }
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

async function main() {
  loadDotEnv();
  process.env.DATABASE_URL ??= DEFAULT_DATABASE_URL;
  const insecureTargets = defaultInsecureTargets();
  const dist = path.resolve(root, process.env.START_DIST || 'dist');
  ensureBuilt(dist);
  const config = validateConfig(dist);
  await ensureDatabase(process.env.DATABASE_URL);
  migrate();
  const demo = await prepareDemo(dist);
  const { formatBanner } = require(path.join(dist, 'cli', 'banner.js'));
  startChildren(dist, () => {
    const banner = formatBanner({
      apiBase: `${config.publicBaseUrl}/api`,
      state: demo.state,
      statePath: demo.statePath,
      insecureTargets,
    });
    process.stdout.write(`\n${banner.join('\n')}\n\n`);
  });
}

main().catch((err) => fail(err && err.stack ? err.stack : String(err)));
