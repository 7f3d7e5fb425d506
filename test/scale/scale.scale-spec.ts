import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { Client } from 'pg';
import { OUTCOME_UNKNOWN } from '../../src/modules/webhooks/worker/delivery-sweep.store';
import { raiseBurst } from '../resilience/delivery-helpers';
import { PgBouncer, sparePort, startPgbouncer } from '../resilience/processes';
import { createTestApp, TestApp } from '../utils/app';
import { createCommunity, memberWithToken } from '../utils/factories';
import { RedisCluster, startRedisCluster } from '../utils/redis-cluster';
import { Receiver, startReceiver } from '../utils/webhook-receiver';
import { createEndpoint, waitFor } from '../utils/worker';
import { Burst, burstOf, checkAgainstLog, deliveryLog, ReceiverLedger, waitForBurst } from './deliveries';
import { Fleet } from './fleet';
import { report } from './report';

// The scale test (README.md#tests): three APIs and three workers, compiled, on a Redis Cluster of three
// masters with one replica each and behind PgBouncer (transaction pooling), proven to keep every promise
// together. test/scale/run.sh compiles the build and runs this file; sizes come from SCALE_* variables.
jest.setTimeout(900_000);

const COMMUNITIES = 10;
const ENDPOINTS_PER_COMMUNITY = 5;
/** events of the exactly-once run (each reaches its community's 5 endpoints) */
const EVENTS = Number(process.env.SCALE_EVENTS ?? 5000);
/** events of each throughput round and of each failure scenario */
const ROUND_EVENTS = Number(process.env.SCALE_ROUND_EVENTS ?? 1000);
/**
 * revocation must reach every other API within this (the promise of
 * docs/product-decisions.md#2-identities-login-api-keys)
 */
const REVOCATION_MS = 1_000;
/** failed logins one account may have per window, whichever API they reach */
const LOGIN_MAX_FAILURES = 10;
/** the longest any burst may take to be delivered and logged */
const BURST_DEADLINE_MS = 180_000;

/**
 * The short durations that make failures show within seconds: the sweep every half second, a dead
 * worker's jobs stalled after 2 s and its claims closed after WEBHOOK_TIMEOUT + 10 s, retries 100 ms
 * apart. WEBHOOK_TIMEOUT stays well above a loaded 2-core box's answer time, so nothing times out
 * when nothing fails. Every process (the 3 APIs, the workers, this file's own app) shares them.
 */
const DURATIONS: Record<string, string> = {
  WEBHOOK_ALLOW_INSECURE_TARGETS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms,100ms,100ms',
  WEBHOOK_AUTO_DISABLE_MIN_FAILURES: '100000',
  WEBHOOK_TIMEOUT: '3s',
  WEBHOOK_SWEEP_INTERVAL: '500ms',
  WORKER_STALLED_INTERVAL: '2s',
  OUTBOX_POLL_INTERVAL: '100ms',
  WORKER_SHUTDOWN_TIMEOUT: '5s',
  // 3 APIs, 3 workers and this file's app at 4 each are 28 clients of PgBouncer, which opens at
  // most PGBOUNCER_POOL server connections for them all (README, Connection budget)
  DATABASE_POOL_SIZE: '4',
  LOG_LEVEL: 'warn',
  LOGIN_MAX_FAILURES: String(LOGIN_MAX_FAILURES),
  JWT_SECRET: randomBytes(32).toString('hex'),
  WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
};
const PGBOUNCER_POOL = 12;

describe('three APIs and three workers on a Redis Cluster behind PgBouncer', () => {
  let cluster: RedisCluster;
  let pgbouncer: PgBouncer;
  let receiver: Receiver;
  let control: TestApp;
  let fleet: Fleet;
  let ledger: ReceiverLedger;
  let owner: { communityId: string; token: string; probeEndpointId: string };
  const communityIds: string[] = [];
  const endpointsOf = new Map<string, string[]>();
  /** how long the receiver waits before answering (the failure scenarios keep deliveries in flight) */
  let answerDelayMs = 0;
  const directUrl = process.env.DATABASE_URL!;
  const databaseName = new URL(directUrl).pathname.slice(1);

  beforeAll(async () => {
    [cluster, pgbouncer, receiver] = await Promise.all([
      startRedisCluster({ masters: 3, replicasPerMaster: 1 }),
      sparePort().then((port) => startPgbouncer(port, { poolSize: PGBOUNCER_POOL })),
      startReceiver(),
    ]);
    const env = {
      ...DURATIONS,
      // every statement through PgBouncer; the workers' LISTEN (a session) on PostgreSQL itself
      DATABASE_URL: `${pgbouncer.url(directUrl)}?pgbouncer=true`,
      DATABASE_DIRECT_URL: directUrl,
      REDIS_CLUSTER_NODES: cluster.nodes,
    };
    control = await createTestApp(env);
    fleet = new Fleet(env);

    // 10 communities of 5 endpoints each, every endpoint at its own path of the one receiver
    const endpointAt = new Map<string, string>();
    const first = await memberWithToken(control.app, { plan: 'PRO', role: 'OWNER' });
    communityIds.push(first.community.id);
    for (let c = 1; c < COMMUNITIES; c++)
      communityIds.push((await createCommunity(control.app, { plan: 'PRO' })).id);
    for (const [c, communityId] of communityIds.entries()) {
      const ids: string[] = [];
      for (let e = 0; e < ENDPOINTS_PER_COMMUNITY; e++) {
        const path = `/c${c}/e${e}`;
        const { id } = await createEndpoint(control, communityId, {
          url: receiver.url + path,
          events: ['tweet.created'],
        });
        receiver.respond(path, () =>
          answerDelayMs === 0
            ? { status: 200 }
            : new Promise((resolve) => setTimeout(() => resolve({ status: 200 }), answerDelayMs)),
        );
        endpointAt.set(path, id);
        ids.push(id);
      }
      endpointsOf.set(communityId, ids);
    }
    // a sixth endpoint of the first community for the test route only: no event reaches it
    const probe = await createEndpoint(control, first.community.id, {
      url: `${receiver.url}/probe`,
      events: ['member.joined'],
    });
    owner = { communityId: first.community.id, token: first.token, probeEndpointId: probe.id };
    ledger = new ReceiverLedger(receiver, endpointAt);

    await fleet.startApis(3);
    await fleet.scaleWorkersTo(3);
  });

  afterAll(async () => {
    await fleet?.stopAll();
    await control?.close();
    await Promise.all([receiver?.close(), cluster?.stop(), pgbouncer?.stop()]);
  });

  /** Raises `count` tweet.created events spread over the 10 communities (in transactions of 50). */
  async function raise(count: number): Promise<Burst> {
    const perCommunity = communityIds.map(
      (_, i) => Math.floor(count / COMMUNITIES) + (i < count % COMMUNITIES ? 1 : 0),
    );
    const raised = await Promise.all(
      communityIds.map(async (communityId, i) =>
        (await raiseBurst(control, communityId, perCommunity[i])).map((messageId) => ({
          messageId,
          communityId,
        })),
      ),
    );
    return burstOf(raised.flat(), endpointsOf);
  }

  async function checked(burst: Burst, options: { exact: boolean; earlierError?: string }) {
    const check = checkAgainstLog(
      burst,
      ledger.countsOf(burst),
      await deliveryLog(control.prisma, burst),
      options,
    );
    expect(check.problems).toEqual([]);
    return check;
  }

  async function api(
    n: number,
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    auth: { token?: string; apiKey?: string },
    body?: unknown,
  ): Promise<{ status: number; body: { data?: unknown } }> {
    const response = await fetch(fleet.apis[n].url + path, {
      method,
      headers: {
        accept: 'application/json',
        ...(auth.token ? { authorization: `Bearer ${auth.token}` } : {}),
        ...(auth.apiKey ? { 'x-api-key': auth.apiKey } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as { data?: unknown } };
  }

  it("keeps every process's Redis keys in the cluster and none on the machine's Redis", async () => {
    const prefix = process.env.REDIS_KEY_PREFIX!;
    const inCluster = await Promise.all(
      (await cluster.masters()).map(async (port) =>
        (await cluster.cli(port, '--scan', '--pattern', `*${prefix}*`)).trim(),
      ),
    );
    expect(inCluster.join('\n')).toContain(prefix);
    const machine = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    try {
      const stray: string[] = [];
      let cursor = '0';
      do {
        const [next, keys] = await machine.scan(cursor, 'MATCH', `*${prefix}*`, 'COUNT', 10_000);
        stray.push(...keys);
        cursor = next;
      } while (cursor !== '0');
      expect(stray).toEqual([]);
    } finally {
      machine.disconnect();
    }
  });

  it('an API key revoked through one API is refused by the other two within a second', async () => {
    const created = await api(
      0,
      'POST',
      '/api/admin/sdk/api-keys',
      { token: owner.token },
      { name: 'scale' },
    );
    expect(created.status).toBe(201);
    const { id, key } = created.body.data as { id: string; key: string };
    // both other APIs answer the key twice first, so each holds it in its cache
    for (const n of [1, 2, 1, 2])
      expect((await api(n, 'GET', '/api/sdk/tweets', { apiKey: key })).status).toBe(200);

    expect((await api(0, 'DELETE', `/api/admin/sdk/api-keys/${id}`, { token: owner.token })).status).toBe(
      200,
    );
    const revokedAt = Date.now();
    const refusedAfter = await Promise.all(
      [1, 2].map((n) =>
        waitFor(
          `API ${n + 1} to refuse the revoked key`,
          async () =>
            (await api(n, 'GET', '/api/sdk/tweets', { apiKey: key })).status === 401 &&
            Date.now() - revokedAt,
          5 * REVOCATION_MS,
          10,
        ),
      ),
    );
    report(
      `revocation: refused by API 2 after ${refusedAfter[0]} ms, by API 3 after ${refusedAfter[1]} ms (limit ${REVOCATION_MS} ms)`,
    );
    expect(Math.max(...refusedAfter)).toBeLessThanOrEqual(REVOCATION_MS);
  });

  it("the test route's burst of 5 stays exact when the calls are spread over the 3 APIs", async () => {
    const path = `/api/communities/${owner.communityId}/webhooks/${owner.probeEndpointId}/test`;
    const answers = await Promise.all(
      Array.from({ length: 15 }, (_, i) => api(i % 3, 'POST', path, { token: owner.token })),
    );
    const statuses = answers.map((a) => a.status);
    report(
      `rate limit: 15 test-route calls over 3 APIs → ${statuses.filter((s) => s === 200).length} accepted, ${statuses.filter((s) => s === 429).length} refused with 429`,
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
    expect(receiver.at('/probe')).toHaveLength(5);
  });

  it('the failed-login limit of one account stays exact when the attempts are spread over the 3 APIs', async () => {
    const email = `nobody-${randomBytes(4).toString('hex')}@example.test`;
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        api(i % 3, 'POST', '/api/auth/login', {}, { email, password: 'not the password' }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    report(
      `rate limit: 30 failed logins of one account over 3 APIs → ${statuses.filter((s) => s === 401).length} ` +
        `answered 401, ${statuses.filter((s) => s === 429).length} refused with 429 (LOGIN_MAX_FAILURES ${LOGIN_MAX_FAILURES})`,
    );
    expect(statuses.filter((s) => s === 401)).toHaveLength(LOGIN_MAX_FAILURES);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30 - LOGIN_MAX_FAILURES);
  });

  it(`${EVENTS} events over 50 endpoints of 10 communities: each attempt arrives exactly once`, async () => {
    await fleet.scaleWorkersTo(3);
    const started = Date.now();
    const burst = await raise(EVENTS);
    await waitForBurst('the exactly-once burst', control.prisma, ledger, burst, BURST_DEADLINE_MS);
    const check = await checked(burst, { exact: true });
    // PostgreSQL saw PgBouncer's pool and the workers' LISTEN sessions, not the processes' pools
    // (PgBouncer keeps idle server connections for minutes: this is about the most the burst used)
    const servers = (await pgbouncer.admin('SHOW SERVERS')).filter((r) => r.database === databaseName).length;
    const direct = new Client({ connectionString: directUrl });
    await direct.connect();
    const sessions = await direct
      .query<{ n: number }>(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database()',
      )
      .finally(() => direct.end());
    expect(servers).toBeLessThanOrEqual(PGBOUNCER_POOL);
    // + this check's own session
    expect(sessions.rows[0].n).toBeLessThanOrEqual(PGBOUNCER_POOL + fleet.workers.length + 1);
    report(
      `exactly once: ${EVENTS} events → ${burst.pairs.size} deliveries by 3 workers in ${Date.now() - started} ms, ` +
        `each arrived once per logged attempt (${check.retried} needed a retry); PostgreSQL sessions ` +
        `${sessions.rows[0].n - 1} (PgBouncer servers ${servers} of ${PGBOUNCER_POOL}, + ${fleet.workers.length} LISTEN) ` +
        `for 7 processes with DATABASE_POOL_SIZE=${DURATIONS.DATABASE_POOL_SIZE}`,
    );
  });

  it('prints deliveries/s of 1, 2 and 3 workers; nothing doubles at any count', async () => {
    const rates = new Map<number, string>();
    for (const workers of [3, 2, 1]) {
      await fleet.scaleWorkersTo(workers);
      const burst = await raise(ROUND_EVENTS);
      await waitForBurst(`the round of ${workers} workers`, control.prisma, ledger, burst, BURST_DEADLINE_MS);
      await checked(burst, { exact: true });
      // first arrival to last: the relay's and the workers' work, not the raising of the events
      const times = ledger.requestsOf(burst).map((r) => r.request.receivedAt);
      const seconds = (Math.max(...times) - Math.min(...times)) / 1000;
      rates.set(workers, `${Math.round(burst.pairs.size / seconds)} deliveries/s`);
    }
    report(
      `throughput (${ROUND_EVENTS} events × 5 endpoints each round, first to last arrival): ` +
        [1, 2, 3].map((n) => `${n} worker${n > 1 ? 's' : ''} ${rates.get(n)}`).join(', '),
    );
  });

  it('a worker killed (SIGKILL) mid-burst: its deliveries finish elsewhere, each request logged once', async () => {
    await fleet.scaleWorkersTo(3);
    answerDelayMs = 25; // deliveries stay in flight long enough to be cut off
    try {
      const burst = await raise(ROUND_EVENTS);
      await waitFor('the burst to be under way', () => ledger.arrived(burst) >= burst.pairs.size / 5, 60_000);
      const killedAt = Date.now();
      expect(await fleet.stopWorker(fleet.workers[0], 'SIGKILL')).toBeNull();
      await waitForBurst('the burst after the kill', control.prisma, ledger, burst, BURST_DEADLINE_MS);
      const check = await checked(burst, { exact: false, earlierError: OUTCOME_UNKNOWN });
      expect(check.unknownOutcomes).toBeGreaterThan(0);
      report(
        `worker killed: the 2 others finished the burst ${Date.now() - killedAt} ms after the kill; ` +
          `${check.unknownOutcomes} attempts closed as outcome unknown and retried, every request logged once`,
      );
    } finally {
      answerDelayMs = 0;
    }
  });

  it('a Redis master killed mid-burst and its replica promoted: nothing is lost, the delay is printed', async () => {
    await fleet.scaleWorkersTo(3);
    answerDelayMs = 25;
    try {
      const burst = await raise(ROUND_EVENTS);
      await waitFor('the burst to be under way', () => ledger.arrived(burst) >= burst.pairs.size / 5, 60_000);
      // the master holding the most keys holds the queue (its keys share one hash slot)
      const masters = await cluster.masters();
      const sizes = await Promise.all(
        masters.map(async (port) => Number((await cluster.cli(port, 'dbsize')).trim())),
      );
      const victim = masters[sizes.indexOf(Math.max(...sizes))];
      const killedAt = Date.now();
      const { ms: promotedMs } = await cluster.killMaster(victim);
      await waitForBurst('the burst after the failover', control.prisma, ledger, burst, BURST_DEADLINE_MS);
      const finishedMs = Date.now() - killedAt;
      const check = await checked(burst, { exact: false });
      // the longest stretch without an arrival after the kill: how long deliveries stood still
      const arrivals = [killedAt, ...ledger.requestsOf(burst).map((r) => r.request.receivedAt)]
        .filter((t) => t >= killedAt)
        .sort((a, b) => a - b);
      const pauseMs = Math.max(...arrivals.slice(1).map((t, i) => t - arrivals[i]));
      report(
        `redis failover: replica promoted (cluster ok) ${promotedMs} ms after the master was killed; ` +
          `deliveries stood still for at most ${pauseMs} ms; burst complete ${finishedMs} ms after the kill; ` +
          `${check.retried} deliveries needed a further attempt, none lost or doubled`,
      );
    } finally {
      answerDelayMs = 0;
    }
  });
});
