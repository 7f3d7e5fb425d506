import { spawn } from 'node:child_process';
import { type AddressInfo, createServer, type Socket } from 'node:net';
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

async function run(args: string[], env: Record<string, string | undefined>) {
  if (!existsSync(join(dist, 'main.js'))) throw new Error('dist/ is missing: npm test builds it first');
  // not spawnSync: a server of the test (a port held, a PostgreSQL that is starting) answers meanwhile
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...MALLOC_ENVIRONMENT, ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 60_000,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((done) => child.once('close', done));
  return { code, stdout, stderr };
}

/** A server on a free port of 127.0.0.1 that `answer` handles; closed by the returned function. */
async function holdPort(answer: (socket: Socket) => void = () => undefined) {
  const server = createServer(answer);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return { port, close: () => new Promise<void>((done) => server.close(() => done())) };
}

/**
 * What PostgreSQL answers while it starts (or recovers): to any start-up message, the FATAL error
 * 57P03 "the database system is starting up" (an SSL request first gets "no SSL").
 */
function startingPostgres(socket: Socket) {
  const field = (code: string, value: string) => Buffer.from(`${code}${value}\0`);
  const fields = Buffer.concat([
    field('S', 'FATAL'),
    field('V', 'FATAL'),
    field('C', '57P03'),
    field('M', 'the database system is starting up'),
    Buffer.from('\0'),
  ]);
  const length = Buffer.alloc(4);
  length.writeInt32BE(fields.length + 4);
  const refuse = () => socket.end(Buffer.concat([Buffer.from('E'), length, fields]));
  socket.on('error', () => undefined);
  socket.once('data', (message: Buffer) => {
    const sslRequest = message.length === 8 && message.readInt32BE(4) === 80877103;
    if (!sslRequest) return refuse();
    socket.write('N');
    socket.once('data', refuse);
  });
}

const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

describe('start-up order and failures', () => {
  it('npm start validates every setting before it creates, migrates or seeds a database', async () => {
    const database = `cp_never_${unique('db').replace(/\W/g, '_')}`.toLowerCase();
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${database}`;
    const res = await run([join('scripts', 'start.js')], {
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

  it('the worker with an unreachable database: one line, exit 1', async () => {
    const res = await run([join(dist, 'worker.js')], {
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/nowhere',
    });
    expect(res.code).toBe(1);
    expect(lines(res.stderr)).toEqual([
      expect.stringMatching(/^\[worker\] Cannot reach PostgreSQL at 127\.0\.0\.1:1 /),
    ]);
  });

  it('a process started without glibc’s malloc settings says so in one line before anything else', async () => {
    const unset = Object.fromEntries(Object.keys(MALLOC_ENVIRONMENT).map((name) => [name, undefined]));
    const res = await run([join(dist, 'worker.js')], {
      ...unset,
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/nowhere',
    });
    expect(lines(res.stderr)).toEqual([
      `[worker] started without MALLOC_MMAP_THRESHOLD_=${MALLOC_ENVIRONMENT.MALLOC_MMAP_THRESHOLD_}: logins may keep an argon2 block per libuv thread (docs/operations.md, "What runs"); npm start, npm run start:worker and the Docker image set it`,
      expect.stringMatching(/^\[worker\] Cannot reach PostgreSQL at 127\.0\.0\.1:1 /),
    ]);
  });

  it('the API with an unreachable Redis: one line, exit 1, never "successfully started"', async () => {
    const res = await run([join(dist, 'main.js')], { REDIS_URL: 'redis://127.0.0.1:1', PORT: '0' });
    expect(res.code).toBe(1);
    expect(lines(res.stderr)).toEqual([
      expect.stringMatching(/^\[api\] Cannot reach Redis at 127\.0\.0\.1:1 /),
    ]);
    expect(res.stdout).not.toContain('successfully started');
  });

  it.each(['api', 'worker'])(
    'the %s while PostgreSQL is starting: one line naming it, exit 1',
    async (processName) => {
      const postgres = await holdPort(startingPostgres);
      try {
        const res = await run([join(dist, processName === 'api' ? 'main.js' : 'worker.js')], {
          DATABASE_URL: `postgresql://postgres@127.0.0.1:${postgres.port}/starting`,
          PORT: '0',
        });
        expect(res.code).toBe(1);
        expect(lines(res.stderr)).toEqual([
          `[${processName}] Cannot reach PostgreSQL at 127.0.0.1:${postgres.port} (DATABASE_URL): the database system is starting up. Is it running, and does the database exist?`,
        ]);
      } finally {
        await postgres.close();
      }
    },
  );

  it.each(['api', 'worker'])('the %s with its METRICS_PORT in use: one line, exit 1', async (processName) => {
    const held = await holdPort();
    try {
      const res = await run([join(dist, processName === 'api' ? 'main.js' : 'worker.js')], {
        METRICS_PORT: String(held.port),
        METRICS_HOST: '127.0.0.1',
        PORT: '0',
      });
      expect(res.code).toBe(1);
      expect(lines(res.stderr)).toEqual([
        `[${processName}] Cannot start: METRICS_PORT ${held.port} is in use: choose another port, or 0 to turn metrics off`,
      ]);
      expect(res.stdout).not.toContain('successfully started');
    } finally {
      await held.close();
    }
  });

  it('the API with its PORT in use: one line, exit 1', async () => {
    const held = await holdPort();
    try {
      const res = await run([join(dist, 'main.js')], {
        PORT: String(held.port),
        HOST: '127.0.0.1',
        METRICS_PORT: '0',
      });
      expect(res.code).toBe(1);
      expect(lines(res.stderr)).toEqual([
        `[api] Cannot start: 127.0.0.1:${held.port} is in use (PORT, HOST): stop what holds it or choose another port`,
      ]);
    } finally {
      await held.close();
    }
  });

  it('the CLI with a bad setting: the setting named, exit 1', async () => {
    const res = await run([join(dist, 'cli', 'main.js'), 'apikey:create', '--community', 'x'], {
      JWT_EXPIRES_IN: 'soon',
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/JWT_EXPIRES_IN/);
  });
});

describe('a clean start', () => {
  it('starts the API without a Fastify warning (FSTWRN004) and answers Fastify errors in the error body', async () => {
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
