import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
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
}

/** `node <compiled>/worker.js`, as `npm run start:worker` runs it, with the test's environment. */
export function spawnWorker(env: Record<string, string>): ChildWorker {
  const dist = process.env.WORKER_DIST;
  if (!dist || !existsSync(join(dist, 'worker.js'))) {
    throw new Error('WORKER_DIST is not set to a compiled worker: run test/resilience/run.sh');
  }
  const child = spawn(process.execPath, [join(dist, 'worker.js')], {
    // compiled outside the repository: resolve packages from the repository's node_modules
    env: { ...process.env, NODE_PATH: join(process.cwd(), 'node_modules'), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { process: child, output: () => output, exited };
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
