import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { load } from 'js-yaml';
import { createServer } from 'node:net';

/** A local port free at the time of asking: bound on port 0, then released. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (comments skipped). */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      labels[key] = value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of a series' samples whose labels include `labels` (0 when there is none). */
export function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

/** GET http://127.0.0.1:<port><path>. */
export async function getLocal(port: number, path: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: res.status, text: await res.text() };
}

export async function scrape(port: number): Promise<Sample[]> {
  const { status, text } = await getLocal(port, '/metrics');
  if (status !== 200) throw new Error(`/metrics answered ${status}: ${text}`);
  return parseExposition(text);
}

/** Runs the compose file's worker health check (a node one-liner) against `port`; resolves its exit code. */
export async function composeWorkerHealthcheck(port: number): Promise<number> {
  const compose = load(readFileSync(resolve(__dirname, '../../docker-compose.yml'), 'utf8')) as {
    services: { worker: { healthcheck: { test: string[] } } };
  };
  const [kind, command, ...args] = compose.services.worker.healthcheck.test;
  expect([kind, command]).toEqual(['CMD', 'node']);
  return new Promise((done) =>
    execFile(process.execPath, args, { env: { ...process.env, METRICS_PORT: String(port) } }, (err) =>
      done(err ? Number(err.code ?? 1) : 0),
    ),
  );
}

/** GET http://<host>:<port><path>; rejects when nothing listens there. */
export async function getFrom(
  host: string,
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await fetch(`http://${host}:${port}${path}`, { headers });
  return { status: res.status, text: await res.text(), headers: res.headers };
}
