import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { MALLOC_ENVIRONMENT } from '../../src/bootstrap/memory-flags';
import { unique } from '../utils/factories';
import { freePort } from '../utils/metrics';
import { waitFor } from '../utils/worker';

/**
 * The processes as a person starts them (`npm start`, `npm run start:api`, `npm run start:worker`),
 * from the build that `npm test` makes first, with the environment those launchers give them
 * (glibc's malloc settings): configuration errors come first, and an unreachable database or Redis
 * is one clear line and a non-zero exit. A variable set to undefined in `env` is left out.
 */
const root = resolve(__dirname, '..', '..');
const dist = join(root, 'dist');

function run(args: string[], env: Record<string, string | undefined>) {
  if (!existsSync(join(dist, 'main.js'))) throw new Error('dist/ is missing: npm test builds it first');
  const result = spawnSync(process.execPath, args, {
    cwd: root,
    env: { ...MALLOC_ENVIRONMENT, ...process.env, LOG_LEVEL: 'info', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

describe('start-up order and failures', () => {
  it('npm start validates every setting before it creates, migrates or seeds a database', async () => {
    const database = `cp_never_${unique('db').replace(/\W/g, '_')}`.toLowerCase();
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${database}`;
    const res = run([join('scripts', 'start.js')], {
      START_DIST: dist,
      DATABASE_URL: url.toString(),
      JWT_EXPIRES_IN: 'forever',
      WEBHOOK_TIMEOUT: '-5s',
      DEMO_STATE_FILE: join(root, 'never-written.json'),
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/JWT_EXPIRES_IN[\s\S]*WEBHOOK_TIMEOUT/);
    expect(res.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(res.stdout).not.toMatch(/migrat/i);
    const admin = new Client({ connectionString: process.env.TEST_DATABASE_ADMIN_URL });
    await admin.connect();
    try {
      const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
      expect(found.rowCount).toBe(0);
    } finally {
      await admin.end();
    }
    expect(existsSync(join(root, 'never-written.json'))).toBe(false);
  });

  it('the worker with an unreachable database: one line, exit 1', () => {
    const res = run([join(dist, 'worker.js')], { DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/nowhere' });
    expect(res.code).toBe(1);
    expect(lines(res.stderr)).toEqual([
      expect.stringMatching(/^\[worker\] Cannot reach PostgreSQL at 127\.0\.0\.1:1 /),
    ]);
  });

  it('a process started without glibc’s malloc settings says so in one line before anything else', () => {
    const unset = Object.fromEntries(Object.keys(MALLOC_ENVIRONMENT).map((name) => [name, undefined]));
    const res = run([join(dist, 'worker.js')], {
      ...unset,
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/nowhere',
    });
    expect(lines(res.stderr)).toEqual([
      `[worker] started without MALLOC_MMAP_THRESHOLD_=${MALLOC_ENVIRONMENT.MALLOC_MMAP_THRESHOLD_}: logins may keep up to 19 MiB per libuv thread (docs/operations.md, "What runs"); npm start, npm run start:worker and the Docker image set it`,
      expect.stringMatching(/^\[worker\] Cannot reach PostgreSQL at 127\.0\.0\.1:1 /),
    ]);
  });

  it('the API with an unreachable Redis: one line, exit 1, never "successfully started"', () => {
    const res = run([join(dist, 'main.js')], { REDIS_URL: 'redis://127.0.0.1:1', PORT: '0' });
    expect(res.code).toBe(1);
    expect(lines(res.stderr)).toEqual([
      expect.stringMatching(/^\[api\] Cannot reach Redis at 127\.0\.0\.1:1 /),
    ]);
    expect(res.stdout).not.toContain('successfully started');
  });

  it('the CLI with a bad setting: the setting named, exit 1', () => {
    const res = run([join(dist, 'cli', 'main.js'), 'apikey:create', '--community', 'x'], {
      JWT_EXPIRES_IN: 'soon',
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/JWT_EXPIRES_IN/);
  });
});

describe('a clean start', () => {
  it('starts the API without a Fastify warning (FSTWRN004) and answers Fastify errors in the contract body', async () => {
    const api = await startBuiltApi();
    try {
      const malformed = await fetch(`${api.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{bad',
      });
      expect(malformed.status).toBe(400);
      expect(await malformed.json()).toEqual({
        success: false,
        error: 'Malformed JSON body',
        code: 'VALIDATION_ERROR',
      });
    } finally {
      await api.stop();
    }
    expect(api.output()).not.toMatch(/FSTWRN004|FastifyWarning/);
  });

  it('the API loads no package for a rare request, and lets go of the query compiler’s source', async () => {
    // what the process has required, sent over IPC on request by a wrapper around dist/main.js
    const api = await startBuiltApi([
      '-e',
      `process.on('message', () => {
        const files = Object.keys(require.cache);
        const packages = new Set(files.map((f) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(f)?.[1]));
        process.send({ packages: [...packages].filter(Boolean), compilerSource: files.filter((f) => f.endsWith('.wasm-base64.js')) });
      });
      require(process.argv[1]);`,
      join(dist, 'main.js'),
    ]);
    try {
      // a request through the guards and a route, as a client's first one
      expect((await fetch(`${api.url}/api/sdk/tweets`)).status).toBe(401);
      // (the API itself sends its start-up signal on the same channel: the report is the message with packages)
      const report = new Promise<{ packages: string[]; compilerSource: string[] }>((done) => {
        const take = (message: { packages?: string[]; compilerSource: string[] }) => {
          if (!message?.packages) return;
          api.process.off('message', take);
          done({ packages: message.packages, compilerSource: message.compilerSource });
        };
        api.process.on('message', take);
      });
      api.process.send('report');
      const { packages, compilerSource } = await report;
      expect(packages).toEqual(
        expect.arrayContaining(['@nestjs/core', 'fastify', 'ioredis', '@prisma/client']),
      );
      // resend and recover only (docs/architecture.md#what-each-process-loads)
      expect(packages).not.toContain('bullmq');
      expect(packages).not.toContain('@nestjs/bullmq');
      // the test route only
      expect(packages).not.toContain('undici');
      // a route with a Fastify schema only, and the API has none
      expect(packages).not.toContain('@fastify/ajv-compiler');
      expect(packages).not.toContain('ajv');
      // the compiler is built (Prisma connected at start), and its base64 text is no longer held
      expect(compilerSource).toEqual([]);
    } finally {
      await api.stop();
    }
  });
});

/** The built API (`node <args>`, by default dist/main.js) on a free port, once it answers. */
async function startBuiltApi(args = [join(dist, 'main.js')]) {
  const port = await freePort();
  const api = spawn(process.execPath, args, {
    cwd: root,
    // an IPC channel, for a test's own wrapper around the API to answer on
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: { ...MALLOC_ENVIRONMENT, ...process.env, LOG_LEVEL: 'warn', PORT: String(port), HOST: '127.0.0.1' },
  });
  let output = '';
  api.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  api.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (api.exitCode !== null || api.signalCode !== null) return;
    api.kill('SIGTERM');
    await new Promise((done) => api.once('exit', done));
  };
  try {
    await waitFor('the API to answer', () => fetch(`${url}/api/health`).catch(() => undefined), 30_000, 100);
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message}\n${output}`);
  }
  return { process: api, url, output: () => output, stop };
}
