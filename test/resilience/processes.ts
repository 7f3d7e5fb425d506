import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { MALLOC_ENVIRONMENT } from '../../src/bootstrap/memory-flags';
import { waitFor } from '../utils/worker';

/** A port nobody listens on right now. */
export async function sparePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface ChildWorker {
  process: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  /** resolves when the process signals it serves (signalReady), rejects if it exits first */
  ready: Promise<void>;
}

/**
 * Every scenario's workers prune the delivery log this often, so its statements run beside every fault the
 * suite injects (retention-concurrent.resilience-spec.ts gives them old rows to delete while they do).
 */
export const RESILIENCE_LOG_PRUNE_INTERVAL = '250ms';

/** `node <compiled>/worker.js`, as `npm run start:worker` runs it, with the test's environment. */
export function spawnWorker(env: Record<string, string | undefined>): ChildWorker {
  return spawnCompiled('worker.js', { WEBHOOK_LOG_PRUNE_INTERVAL: RESILIENCE_LOG_PRUNE_INTERVAL, ...env });
}

/**
 * `node <compiled>/<entry>` (worker.js or main.js, the API) with the test's environment and glibc's
 * malloc settings, as the launchers start it (a variable set to undefined in `env` is left out), over an IPC
 * channel so the test learns when it is ready the way `npm start` does (src/bootstrap/preflight.ts).
 */
export function spawnCompiled(
  entry: 'worker.js' | 'main.js',
  env: Record<string, string | undefined>,
): ChildWorker {
  const dist = process.env.WORKER_DIST;
  if (!dist || !existsSync(join(dist, entry))) {
    throw new Error(`WORKER_DIST is not set to a compiled build with ${entry}: run test/resilience/run.sh`);
  }
  const child = spawn(process.execPath, [join(dist, entry)], {
    // compiled outside the repository: resolve packages from the repository's node_modules
    env: {
      ...MALLOC_ENVIRONMENT,
      ...process.env,
      NODE_PATH: join(process.cwd(), 'node_modules'),
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = new Promise<void>((resolve, reject) => {
    child.on('message', (message: { type?: string }) => message?.type === 'ready' && resolve());
    void exited.then((code) =>
      reject(new Error(`${entry} exited (${code}) before it was ready:\n${output}`)),
    );
  });
  ready.catch(() => undefined); // a caller that never waits for readiness sees the exit instead
  return { process: child, output: () => output, exited, ready };
}

/** Ends, with SIGKILL, each of a test's child processes that is still running (an afterAll's cleanup). */
export function killStillRunning(children: ChildWorker[]): void {
  for (const child of children) if (child.process.exitCode === null) child.process.kill('SIGKILL');
}

export interface RedisServer {
  url: string;
  port: number;
  stop: () => Promise<void>;
}

/** A redis-server of the test's own (never the machine's), without persistence. */
export async function startRedis(port: number): Promise<RedisServer> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  await waitFor(`redis-server on port ${port}`, () => output.includes('Ready to accept connections'), 10_000);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

export interface PgBouncer {
  port: number;
  /** the pgbouncer process's id (stop() kills exactly this one) */
  pid: number;
  /** `databaseUrl` (a postgresql:// URL to 127.0.0.1:5432) rewritten to go through this pgbouncer */
  url: (databaseUrl: string) => string;
  /** a statement on pgbouncer's admin console (`SHOW SERVERS`, `SHOW POOLS`, `SHOW STATS`…) */
  admin: (command: string) => Promise<Record<string, unknown>[]>;
  output: () => string;
  stop: () => Promise<void>;
}

/**
 * Debian's pgbouncer (1.18) of the test's own, in TRANSACTION pooling mode, on `port`, in front of the
 * machine's PostgreSQL (127.0.0.1:5432, trust auth): every database name is passed through (`*`), so
 * one instance serves any throw-away database. `poolSize` is pgbouncer's default_pool_size, the
 * server connections per database+user: small, so consecutive statements of one client land on
 * different server connections as they do in production. Its ini and userlist live in a temporary
 * directory removed by stop(). pgbouncer refuses to run as root: then it is started with `-u`
 * (postgres, else nobody).
 */
export async function startPgbouncer(
  port: number,
  options: { poolSize?: number; upstream?: { host: string; port: number } } = {},
): Promise<PgBouncer> {
  const upstream = options.upstream ?? { host: '127.0.0.1', port: 5432 };
  const dir = mkdtempSync(join(tmpdir(), 'cp-pgbouncer-'));
  writeFileSync(join(dir, 'userlist.txt'), '"postgres" ""\n');
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${upstream.host} port=${upstream.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${options.poolSize ?? 2}`,
      'max_client_conn = 1000',
      'admin_users = postgres',
      // node-postgres and Prisma's schema engine send these; pgbouncer refuses unknown ones
      'ignore_startup_parameters = extra_float_digits,options',
      '',
    ].join('\n'),
  );
  const args = [join(dir, 'pgbouncer.ini')];
  if (process.getuid?.() === 0) {
    const user = spawnSync('id', ['-u', 'postgres']).status === 0 ? 'postgres' : 'nobody';
    // the unprivileged user reads the ini and userlist
    chmodSync(dir, 0o755);
    args.unshift('-u', user);
  }
  const child = spawn('pgbouncer', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  let exitedEarly = false;
  const exited = new Promise<void>((resolve) =>
    child.on('exit', () => {
      exitedEarly = true;
      resolve();
    }),
  );
  try {
    await waitFor(`pgbouncer on port ${port}`, () => {
      if (exitedEarly) throw new Error(`pgbouncer exited: ${output}`);
      return output.includes(`listening on 127.0.0.1:${port}`);
    });
  } catch (err) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    port,
    pid: child.pid!,
    url: (databaseUrl) => {
      const url = new URL(databaseUrl);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      return url.toString();
    },
    admin: async (command) => {
      const client = new Client({ host: '127.0.0.1', port, user: 'postgres', database: 'pgbouncer' });
      await client.connect();
      try {
        // no parameters: the simple query protocol, the only one the admin console speaks
        return (await client.query<Record<string, unknown>>(command)).rows;
      } finally {
        await client.end();
      }
    },
    output: () => output,
    stop: async () => {
      child.kill('SIGKILL');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
