// The pieces of the platform benchmark (bench/platform.mjs) that are not the measurement itself: the
// communities, endpoints and API keys it seeds, the hundred local receivers (healthy, slow, failing),
// the API processes it starts beside the workers, and what it reads of each process (CPU, peak RSS).
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fetch } from 'undici';
import { insertApiKey } from './api-key.mjs';
import { ownChild } from './children.mjs';
import { benchEncryptionKey, seedEndpoints, WORKER_DIST } from './delivery-harness.mjs';
import { launchNodeFlags, mallocEnvironment } from './launch-settings.mjs';

/**
 * One community per endpoint, each with an owner's API key: publisher `p` of `publishers` writes to
 * communities p, p + publishers, p + 2·publishers, … in turn, so each event has exactly one receiver
 * (the method's "100 webhook destinations", each on a port of its own so that no two share a connection).
 */
export async function seedPlatform(db, receivers) {
  const ownerId = randomUUID();
  await db.query(
    `INSERT INTO users (id, email, name, updated_at) VALUES ($1, 'owner@platform.bench', 'Platform Owner', now())`,
    [ownerId],
  );
  const destinations = [];
  for (const receiver of receivers) {
    const { communityId, endpointIds } = await seedEndpoints(db, 1, receiver.url);
    await db.query(
      `INSERT INTO memberships (id, community_id, user_id, role, updated_at) VALUES ($1, $2, $3, 'OWNER', now())`,
      [randomUUID(), communityId, ownerId],
    );
    const apiKey = await insertApiKey(db, communityId, ownerId);
    destinations.push({ communityId, endpointId: endpointIds[0], apiKey, receiver });
  }
  // failing endpoints retry on a short schedule of their own, so their retries fall inside the run
  const failing = destinations.filter((d) => d.receiver.kind === 'failing').map((d) => d.endpointId);
  await db.query(
    `UPDATE webhook_endpoints SET retry_schedule_ms = '{1000,2000,4000}' WHERE id = ANY($1::uuid[])`,
    [failing],
  );
  return destinations;
}

/**
 * A local receiver of one kind: `healthy` answers 200 at once, `slow` after `slowMs`, `failing` answers
 * 500. Each notes, per webhook-id, when it first arrived and the event's own `timestamp` (set by the
 * API inside the transaction that commits it), so commit → receipt is measured on one clock.
 */
export async function startPlatformReceiver(kind, slowMs) {
  const receipts = new Map();
  let requests = 0;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      requests += 1;
      const at = performance.timeOrigin + performance.now();
      const id = req.headers['webhook-id'];
      if (kind !== 'failing' && !receipts.has(id)) {
        const committed = Date.parse(JSON.parse(Buffer.concat(chunks).toString('utf8')).timestamp);
        receipts.set(id, { at, latencyMs: at - committed });
      }
      const answer = () => {
        res.writeHead(kind === 'failing' ? 500 : 200, { 'content-type': 'text/plain' });
        res.end(kind === 'failing' ? 'down' : 'ok');
      };
      if (kind === 'slow') setTimeout(answer, slowMs);
      else answer();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    kind,
    url: `http://127.0.0.1:${server.address().port}/hook`,
    receipts,
    requests: () => requests,
    close: () => new Promise((r) => (server.closeAllConnections(), server.close(r))),
  };
}

/** `node <build>/main.js` on `port` against the bench database; resolves once it answers. */
export async function startPlatformApi(port, env) {
  const child = ownChild(
    spawn(process.execPath, [...launchNodeFlags(WORKER_DIST, 'api'), join(WORKER_DIST, 'main.js')], {
      env: {
        ...mallocEnvironment(WORKER_DIST),
        ...process.env,
        NODE_ENV: 'production',
        PORT: String(port),
        HOST: '127.0.0.1',
        METRICS_PORT: '0',
        LOG_LEVEL: 'warn',
        JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
        WEBHOOK_SECRET_ENCRYPTION_KEY: benchEncryptionKey(),
        ...env,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const answered = await fetch(`${url}/api/health`).then(
      () => true,
      () => false,
    );
    if (answered) break;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the API on ${port} did not start`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const exited = new Promise((r) => child.on('exit', r));
  return {
    pid: child.pid,
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** CPU time (user + system) of a live process so far, in ms. */
export function cpuMsOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks of 10 ms
}

/** Peak resident set size (VmHWM) of a live process so far, in MiB. */
export function peakRssOf(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM'));
  return Math.round(Number(line.replace(/\D+/g, '')) / 1024);
}

/**
 * `publishers` loops, each posting tweets through the APIs (publisher p through API p mod n) to its
 * destinations in turn, together at `rate` events per second, until `events` were asked for. Each
 * publisher keeps its own pace (a late answer does not delay the next request: they overlap, as
 * independent clients' would). Resolves with what was accepted and when.
 */
export async function publish({ destinations, apis, publishers, rate, events }) {
  const perPublisher = rate / publishers;
  let accepted = 0;
  let refused = 0;
  let firstAt = Infinity;
  let lastAt = 0;
  const body = JSON.stringify({ content: 'A tweet of the platform benchmark: '.padEnd(280, 'x') });
  const loops = Array.from({ length: publishers }, async (_, p) => {
    const own = destinations.filter((_, i) => i % publishers === p);
    const api = apis[p % apis.length];
    const count = Math.floor(events / publishers) + (p < events % publishers ? 1 : 0);
    const start = performance.now();
    const pending = [];
    for (let n = 0; n < count; n++) {
      const wait = start + (n * 1000) / perPublisher - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const destination = own[n % own.length];
      const sentAt = performance.timeOrigin + performance.now();
      if (sentAt < firstAt) firstAt = sentAt;
      pending.push(
        fetch(`${api.url}/api/sdk/tweets`, {
          method: 'POST',
          headers: { 'x-api-key': destination.apiKey, 'content-type': 'application/json' },
          body,
        }).then(
          async (res) => {
            await res.arrayBuffer();
            if (res.status === 201) accepted++;
            else refused++;
            lastAt = Math.max(lastAt, performance.timeOrigin + performance.now());
          },
          () => refused++,
        ),
      );
    }
    await Promise.all(pending);
  });
  await Promise.all(loops);
  return { accepted, refused, seconds: (lastAt - firstAt) / 1000 };
}
