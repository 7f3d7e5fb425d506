#!/usr/bin/env node
// Runs each client library's tests against the real service (docs/api.md#client-libraries): the compiled API
// and worker (dist/, `npm run build`) on a throw-away PostgreSQL database and Redis key prefix, with
// WEBHOOK_ALLOW_INSECURE_TARGETS=true so a receiver on 127.0.0.1 can be delivered to. The clients' suites get
// the address and a platform admin's login through the environment:
//   CP_BASE_URL, CP_ADMIN_EMAIL, CP_ADMIN_PASSWORD
// Needs PostgreSQL (TEST_DATABASE_ADMIN_URL, default postgresql://postgres@127.0.0.1:5432/postgres)
// and Redis (REDIS_URL, default redis://127.0.0.1:6379), as the root test suite does.
// The Python client's suite runs with the package installed into a throw-away venv (`pip install
// --no-build-isolation --no-index`: its build backend is in the package), by `python3` (or $PYTHON).
// Each suite ends with a closing line; the exit code is non-zero when any suite failed.
// Usage: node clients/test-against-service.mjs   (after building the service and clients/typescript)
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deleteRunKeys } from '../scripts/redis-run-keys.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const { Client } = require('pg');

const python = process.env.PYTHON ?? 'python3';
const venv = mkdtempSync(join(tmpdir(), 'cp-clients-venv-'));
process.on('exit', () => rmSync(venv, { recursive: true, force: true }));
const venvPython = join(venv, process.platform === 'win32' ? 'Scripts/python.exe' : 'bin/python');

/** Each client's suite: `prepare` (optional) runs first, then `command` in `cwd` (the root by default). */
const SUITES = [
  {
    name: 'typescript',
    ready: join(root, 'clients/typescript/dist/esm/index.js'),
    command: [process.execPath, '--test', 'clients/typescript/test-service/service.test.mjs'],
  },
  {
    name: 'python',
    ready: join(root, 'clients/python/pyproject.toml'),
    // The installed form, not the source tree: what `pip install ./clients/python` gives a user.
    prepare: () => {
      runCommand([python, '-m', 'venv', venv], 'python3 -m venv');
      runCommand(
        [
          venvPython,
          '-m',
          'pip',
          'install',
          '--quiet',
          '--no-build-isolation',
          '--no-index',
          'clients/python',
        ],
        'pip install clients/python',
      );
    },
    cwd: join(root, 'clients/python'),
    command: [venvPython, '-m', 'unittest', '-v', 'test_service.test_against_service'],
  },
];
const STARTUP_TIMEOUT_MS = 60_000;

const say = (line) => process.stdout.write(`[clients] ${line}\n`);

async function sparePort() {
  const server = createServer();
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address();
  await new Promise((done) => server.close(done));
  return port;
}

/** Spawns a compiled entry point; resolves once it reports ready over IPC (signalReady, src/bootstrap/preflight.ts). */
function startProcess(name, entry, env) {
  const child = spawn(process.execPath, [join(root, 'dist', entry)], {
    cwd: root,
    env,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise((done) => child.on('exit', (code, signal) => done(code ?? signal)));
  const ready = new Promise((done, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`${name} not ready after ${STARTUP_TIMEOUT_MS} ms`)),
      STARTUP_TIMEOUT_MS,
    );
    child.on('message', (message) => {
      if (message?.type === 'ready') {
        clearTimeout(timer);
        done();
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      fail(new Error(`${name} exited (${code}) before it was ready`));
    });
  });
  return { child, exited, ready, name };
}

async function stopProcess(proc) {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill('SIGTERM');
  const killer = setTimeout(() => proc.child.kill('SIGKILL'), 25_000);
  await proc.exited;
  clearTimeout(killer);
}

async function main() {
  for (const file of [join(root, 'dist/main.js'), join(root, 'dist/worker.js')]) {
    if (!existsSync(file))
      throw new Error(`${file} is missing: run \`npm run build\` at the repository root`);
  }
  const adminUrl = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  const runId = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const database = `cp_clients_${runId}`;
  const databaseUrl = new URL(adminUrl);
  databaseUrl.pathname = `/${database}`;
  const port = await sparePort();
  const env = {
    // glibc's malloc settings, as npm run start:api / start:worker give them (src/bootstrap/memory-flags.ts)
    ...require(join(root, 'dist/bootstrap/memory-flags.js')).MALLOC_ENVIRONMENT,
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.CLIENTS_LOG_LEVEL ?? 'warn',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: databaseUrl.toString(),
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_KEY_PREFIX: `cp_clients_${runId}`,
    JWT_SECRET: 'clients-test-jwt-secret-of-at-least-thirty-two-characters',
    WEBHOOK_ALLOW_INSECURE_TARGETS: 'true',
    // No metrics server: the run reads none, and the default ports (9464/9465) may be taken.
    METRICS_PORT: '0',
    // The document's info.version, as `npm start` sets it (the committed openapi.json carries it).
    npm_package_version: require(join(root, 'package.json')).version,
  };
  const admin = { email: 'clients-admin@example.com', password: `pw-${randomBytes(9).toString('hex')}` };
  const processes = [];
  let failed = 0;

  const pg = new Client({ connectionString: adminUrl });
  await pg.connect();
  await pg.query(`CREATE DATABASE "${database}"`);
  try {
    say(`database ${database}: migrating`);
    run(
      [join(root, 'node_modules/prisma/build/index.js'), 'migrate', 'deploy'],
      env,
      'prisma migrate deploy',
    );
    const cli = [
      join(root, 'dist/cli/main.js'),
      'user:create',
      '--email',
      admin.email,
      '--password',
      admin.password,
    ];
    run([...cli, '--name', 'Clients Admin', '--platform-admin'], env, 'user:create');

    processes.push(startProcess('API', 'main.js', env), startProcess('worker', 'worker.js', env));
    await Promise.all(processes.map((p) => p.ready));
    const baseUrl = `http://127.0.0.1:${port}`;
    say(`API and worker ready at ${baseUrl}`);

    for (const suite of SUITES) {
      if (!existsSync(suite.ready))
        throw new Error(`${suite.ready} is missing: build the ${suite.name} client first`);
      say(`${suite.name} client against the service`);
      try {
        suite.prepare?.();
      } catch (err) {
        failed += 1;
        say(`${suite.name}: FAILED before its tests (${err.message})`);
        continue;
      }
      const result = spawnSync(suite.command[0], suite.command.slice(1), {
        cwd: suite.cwd ?? root,
        stdio: 'inherit',
        env: {
          ...process.env,
          CP_BASE_URL: baseUrl,
          CP_ADMIN_EMAIL: admin.email,
          CP_ADMIN_PASSWORD: admin.password,
        },
      });
      if (result.status !== 0) {
        failed += 1;
        say(`${suite.name}: FAILED (exit ${result.status ?? result.error?.message ?? result.signal})`);
      } else {
        say(`${suite.name}: passed`);
      }
    }
  } finally {
    await Promise.all(processes.map(stopProcess));
    await pg.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await pg.end();
    await deleteRunKeys(env.REDIS_URL, env.REDIS_KEY_PREFIX);
  }
  if (failed > 0) {
    say(`${failed} of ${SUITES.length} client suite(s) FAILED against the service`);
    process.exit(1);
  }
  say(`${SUITES.length} client suite(s) passed against the service`);
}

function run(args, env, what) {
  const result = spawnSync(process.execPath, args, {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (result.status !== 0) throw new Error(`${what} failed (exit ${result.status ?? result.signal})`);
}

/** A command other than node (python, pip), its output shown; throws when it fails. */
function runCommand(args, what) {
  const result = spawnSync(args[0], args.slice(1), { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0)
    throw new Error(`${what} failed (exit ${result.status ?? result.error?.message ?? result.signal})`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
