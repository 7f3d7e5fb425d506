import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { ApiProcess, Fleet } from '../scale/fleet';
import { createTestApp, TestApp } from '../utils/app';
import { createApiKey, memberWithToken } from '../utils/factories';
import { Receiver, startReceiver } from '../utils/webhook-receiver';
import { createEndpoint, waitFor } from '../utils/worker';

// The failover test (docs/operations.md#testing-a-failover). test/ha/run.sh starts the formation
// (test/ha/cluster.sh) in HA_DIR, migrates its database and compiles the build into WORKER_DIST.
jest.setTimeout(600_000);

const HA_DIR = process.env.HA_DIR!;
const KILL_AT_MS = Number(process.env.HA_KILL_AT ?? 20) * 1000;
const REVIVE_AT_MS = Number(process.env.HA_REVIVE_AT ?? 60) * 1000;
const RATE = Number(process.env.HA_RATE ?? 50);
/** a write must be answered within this, whatever the database does (never a hang) */
const ANSWER_MS = 10_000;
/** the longest time without a successful write the test accepts (the target on these machines) */
const MAX_GAP_MS = 30_000;

function env(): Record<string, string> {
  return Object.fromEntries(
    readFileSync(join(HA_DIR, 'env'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}
/**
 * A cluster.sh command, awaited: the load and the probes keep running meanwhile. (Run synchronously, it
 * froze this process's event loop for the revive and the waits, so a write in flight then looked
 * unanswered and no write was tried while the cluster changed.)
 */
const cluster = async (...args: string[]): Promise<string> => {
  const { stdout, stderr } = await promisify(execFile)('bash', ['test/ha/cluster.sh', ...args], {
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  if (stderr) process.stderr.write(stderr);
  return stdout;
};
const report = (line: string) => {
  console.log(line);
  if (process.env.HA_REPORT) appendFileSync(process.env.HA_REPORT, `${line}\n`);
};

/** One write of the load: its key, and each try's answer. */
interface Write {
  key: string;
  startedAt: number;
  tries: { status: number | 'timeout' | 'network'; at: number; ms: number }[];
  /** when it was answered 2xx, and the tweet's id */
  ackedAt?: number;
  id?: string;
}

/** POST with the write's Idempotency-Key until a 2xx, honouring Retry-After; each try bounded by ANSWER_MS. */
async function write(api: ApiProcess, apiKey: string, w: Write, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    const at = Date.now();
    let status: Write['tries'][number]['status'];
    let retryAfter = 1;
    try {
      const res = await fetch(`${api.url}/api/sdk/tweets`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'idempotency-key': w.key, 'content-type': 'application/json' },
        body: JSON.stringify({ content: w.key }),
        signal: AbortSignal.timeout(ANSWER_MS),
      });
      status = res.status;
      retryAfter = Number(res.headers.get('retry-after') ?? 1);
      const body = (await res.json()) as { data?: { id?: string }; id?: string };
      if (res.ok) {
        w.ackedAt = Date.now();
        w.id = body.data?.id ?? body.id;
      }
    } catch (err) {
      status = (err as Error).name === 'TimeoutError' ? 'timeout' : 'network';
    }
    w.tries.push({ status, at, ms: Date.now() - at });
    if (w.ackedAt) return;
    await new Promise((r) => setTimeout(r, Math.min(retryAfter, 2) * 1000));
  }
}

describe('PostgreSQL failover under 50 writes/s (pg_auto_failover, HAProxy)', () => {
  const cfg = env();
  let control: TestApp;
  let fleet: Fleet;
  let receiver: Receiver;
  let apiKey: string;
  let communityId: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    const shared = {
      DATABASE_URL: cfg.WRITE_URL,
      DATABASE_CONNECT_TIMEOUT: '3s',
      WEBHOOK_ALLOW_INSECURE_TARGETS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '500ms,1s,2s,2s,2s,2s,2s,2s,2s,2s',
      WEBHOOK_AUTO_DISABLE_MIN_FAILURES: '100000',
      WEBHOOK_SWEEP_INTERVAL: '1s',
      OUTBOX_POLL_INTERVAL: '250ms',
      DATABASE_POOL_SIZE: '5',
      LOG_LEVEL: 'warn',
    };
    control = await createTestApp(shared);
    const owner = await memberWithToken(control.app, { plan: 'PRO', role: 'OWNER' });
    communityId = owner.community.id;
    apiKey = (await createApiKey(control.app, communityId, owner.user.id)).key;
    await createEndpoint(control, communityId, { url: `${receiver.url}/ha`, events: ['tweet.created'] });
    fleet = new Fleet(shared);
    await fleet.startApis(2);
    await fleet.scaleWorkersTo(2);
  });

  afterAll(async () => {
    await fleet?.stopAll();
    await control?.close();
    await receiver?.close();
  });

  it('refuses writes with 503 while no primary takes them, loses nothing acknowledged, and delivers every event', async () => {
    const pids = [...fleet.apis.map((a) => a.child.process.pid), ...fleet.workers.map((w) => w.process.pid)];
    const writes: Write[] = [];
    const ready: { at: number; status: number }[] = [];
    const reads: { at: number; status: number }[] = [];
    const start = Date.now();
    const end = start + REVIVE_AT_MS + 45_000;
    const inFlight: Promise<void>[] = [];
    let n = 0;
    const load = setInterval(() => {
      if (Date.now() >= end) return;
      const w: Write = { key: randomUUID(), startedAt: Date.now(), tries: [] };
      writes.push(w);
      inFlight.push(write(fleet.apis[n++ % 2], apiKey, w, Date.now() + 120_000));
    }, 1000 / RATE);
    const probe = setInterval(() => {
      const at = Date.now();
      // the database's indicator of the answer (the compiled build runs outside the repository, where
      // the migrations check cannot read the shipped migrations, so that one stays down)
      void fetch(`${fleet.apis[0].url}/api/health/ready`, { signal: AbortSignal.timeout(ANSWER_MS) })
        .then(async (r) =>
          ready.push({ at, status: /"database":\{"status":"up"/.test(await r.text()) ? 200 : 503 }),
        )
        .catch(() => ready.push({ at, status: 0 }));
      void fetch(`${fleet.apis[1].url}/api/sdk/tweets?limit=5`, {
        headers: { 'x-api-key': apiKey },
        signal: AbortSignal.timeout(ANSWER_MS),
      })
        .then((r) => reads.push({ at, status: r.status }))
        .catch(() => reads.push({ at, status: 0 }));
    }, 250);

    const primary = (await cluster('state-of', 'node1', HA_DIR)).trim() === 'primary' ? 'node1' : 'node2';
    await new Promise((r) => setTimeout(r, KILL_AT_MS));
    const killedAt = Date.now();
    const ackedBeforeKill = writes.filter((w) => w.ackedAt && w.ackedAt < killedAt).map((w) => w.key);
    await cluster('kill', primary, HA_DIR);
    await new Promise((r) => setTimeout(r, Math.max(0, start + REVIVE_AT_MS - Date.now())));
    await cluster('revive', primary, HA_DIR);
    await cluster('wait-healthy', HA_DIR, '180');
    const switchedAt = Date.now();
    const ackedBeforeSwitch = writes.filter((w) => w.ackedAt && w.ackedAt < switchedAt).map((w) => w.key);
    await cluster('switchover', HA_DIR);
    await cluster('wait-healthy', HA_DIR, '180');
    await new Promise((r) => setTimeout(r, Math.max(0, end - Date.now())));
    clearInterval(load);
    clearInterval(probe);
    await Promise.all(inFlight);

    // every answer: 2xx, or 503 SERVICE_UNAVAILABLE (or 409 IDEMPOTENCY_KEY_IN_USE while a try runs), in time
    const tries = writes.flatMap((w) => w.tries);
    const count = (test: (s: Write['tries'][number]['status']) => boolean) =>
      tries.filter((t) => test(t.status)).length;
    const longest = Math.max(...tries.map((t) => t.ms));
    // the longest time without a 2xx answer
    const acks = writes
      .map((w) => w.ackedAt!)
      .filter(Boolean)
      .sort((a, b) => a - b);
    const gaps = acks.slice(1).map((t, i) => ({ from: acks[i], ms: t - acks[i] }));
    const killGap = Math.max(
      ...gaps.filter((g) => g.from >= killedAt - 1000 && g.from < start + REVIVE_AT_MS).map((g) => g.ms),
    );
    const switchGap = Math.max(...gaps.filter((g) => g.from >= switchedAt - 1000).map((g) => g.ms));

    // on the new primary: each key exactly once, every acknowledged write there
    const db = new Client({ connectionString: cfg.WRITE_URL });
    await db.connect();
    const rows = (
      await db.query<{ content: string; n: number }>(
        'SELECT content, count(*)::int AS n FROM tweets WHERE community_id = $1 GROUP BY content',
        [communityId],
      )
    ).rows;
    const stored = new Map(rows.map((r) => [r.content, r.n]));
    // every event committed is delivered (at least once)
    const committed = (
      await db.query<{ id: string; at: number }>(
        "SELECT message_id AS id, (extract(epoch FROM created_at) * 1000)::float8 AS at FROM outbox_events WHERE community_id = $1 AND event_type = 'tweet.created'",
        [communityId],
      )
    ).rows;
    const events = committed.map((r) => r.id);
    await db.end();
    const delivered = () => new Set(receiver.at('/ha').map((r) => r.headers['webhook-id']));
    await waitFor('every event delivered', () => events.every((id) => delivered().has(id)), 180_000).catch(
      () => undefined,
    );
    const got = delivered();
    const lost = events.filter((id) => !got.has(id));
    const deliveries = receiver.at('/ha');
    const firstDelivery = new Map<string, number>();
    for (const d of deliveries)
      if (!firstDelivery.has(d.headers['webhook-id']))
        firstDelivery.set(d.headers['webhook-id'], d.receivedAt);
    // from the event's commit to its first delivery, for events committed in [from, to)
    const delay = (from: number, to: number) =>
      committed
        .filter((e) => e.at >= from && e.at < to && firstDelivery.has(e.id))
        .map((e) => firstDelivery.get(e.id)! - e.at)
        .sort((a, b) => a - b);
    const pct = (xs: number[], p: number) =>
      xs.length ? xs[Math.min(xs.length - 1, Math.floor(xs.length * p))] : NaN;
    const readyDown = ready.filter((r) => r.at > killedAt && r.status !== 200);
    const readsDuring = reads.filter((r) => r.at > killedAt && r.at < killedAt + killGap);

    report(
      `writes: ${writes.length} at ${RATE}/s, ${tries.length} tries; answers: ${count((s) => s === 201 || s === 200)} 2xx, ${count((s) => s === 503)} 503, ${count((s) => s === 409)} 409 in use, ${count((s) => s === 500)} 500, ${count((s) => s === 'timeout')} unanswered within ${ANSWER_MS / 1000} s, ${count((s) => s === 'network')} network errors; slowest answer ${longest} ms`,
    );
    report(
      `primary killed (SIGKILL of its keeper and postmaster) at ${(killedAt - start) / 1000} s: longest time without a successful write ${killGap} ms (target < ${MAX_GAP_MS} ms); readiness not ready ${readyDown.length} times of ${ready.filter((r) => r.at > killedAt).length} probes after it; reads during the gap: ${readsDuring.filter((r) => r.status === 200).length} 200, ${readsDuring.filter((r) => r.status === 503).length} 503, ${readsDuring.filter((r) => r.status >= 500 && r.status !== 503).length} other 5xx`,
    );
    report(
      `writes unanswered within ${ANSWER_MS / 1000} s, tried at (s from the start): ${
        tries
          .filter((t) => t.status === 'timeout')
          .map((t) => (t.at - start) / 1000)
          .join(', ') || 'none'
      }`,
    );
    report(
      `planned switchover at ${(switchedAt - start) / 1000} s: longest time without a successful write ${switchGap} ms`,
    );
    report(
      `acknowledged before the kill: ${ackedBeforeKill.length}, missing after it: ${ackedBeforeKill.filter((k) => stored.get(k) !== 1).length}; before the switchover: ${ackedBeforeSwitch.length}, missing: ${ackedBeforeSwitch.filter((k) => stored.get(k) !== 1).length}; keys stored twice: ${rows.filter((r) => r.n > 1).length}`,
    );
    report(
      `events committed ${events.length}, delivered ${events.length - lost.length}, lost ${lost.length}`,
    );
    report(
      `delivery delay (event committed to first delivery, p50/p95/max ms): before the kill ${[0.5, 0.95, 1].map((p) => pct(delay(start, killedAt), p)).join('/')}, around it ${[0.5, 0.95, 1].map((p) => pct(delay(killedAt - 5000, killedAt + killGap + 5000), p)).join('/')}, after ${[0.5, 0.95, 1].map((p) => pct(delay(killedAt + killGap + 5000, end), p)).join('/')}`,
    );

    expect(count((s) => typeof s === 'number' && s >= 500 && s !== 503)).toBe(0);
    expect(count((s) => s === 'timeout')).toBe(0);
    expect(count((s) => s === 503)).toBeGreaterThan(0); // the switch was seen, and refused cleanly
    expect(writes.every((w) => w.ackedAt)).toBe(true); // every key went through in the end
    expect(ackedBeforeKill.filter((k) => stored.get(k) !== 1)).toEqual([]);
    expect(ackedBeforeSwitch.filter((k) => stored.get(k) !== 1)).toEqual([]);
    expect(rows.filter((r) => r.n > 1)).toEqual([]);
    expect(writes.filter((w) => stored.get(w.key) !== 1).map((w) => w.key)).toEqual([]);
    expect(lost).toEqual([]);
    expect(killGap).toBeLessThan(MAX_GAP_MS);
    expect(readyDown.length).toBeGreaterThan(0);
    expect(ready[ready.length - 1].status).toBe(200);
    expect(reads.filter((r) => r.status >= 500 && r.status !== 503)).toEqual([]);
    // no process restarted or died
    expect(
      [...fleet.apis.map((a) => a.child), ...fleet.workers].every((c) => c.process.exitCode === null),
    ).toBe(true);
    expect([
      ...fleet.apis.map((a) => a.child.process.pid),
      ...fleet.workers.map((w) => w.process.pid),
    ]).toEqual(pids);
  });
});
