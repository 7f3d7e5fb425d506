import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { Client, Pool } from 'pg';
import { createTestApp, TestApp } from '../utils/app';
import { call } from '../utils/http';
import { createIsolatedDatabase, IsolatedDatabase } from '../utils/isolated-database';
import { Caller, memberCaller, outboxOf, unique } from '../utils/factories';
import { Receiver, startReceiver } from '../utils/webhook-receiver';
import { createEndpoint, DELIVERY_TEST_ENV, waitFor } from '../utils/worker';
import {
  ChildWorker,
  killStillRunning,
  PgBouncer,
  sparePort,
  spawnWorker,
  startPgbouncer,
} from './processes';

jest.setTimeout(120_000);

/**
 * The API (in this process) and a worker (a child process) with DATABASE_URL through a pgbouncer in
 * transaction mode whose pool (2 server connections) is smaller than the service's (8 clients): a
 * client's consecutive statements land on different server connections, as in production.
 */
const SERVER_CONNECTIONS = 2;

describe('through PgBouncer in transaction mode', () => {
  let db: IsolatedDatabase;
  let bouncer: PgBouncer;
  let pooledUrl: string;
  let env: Record<string, string>;
  let api: TestApp;
  let receiver: Receiver;
  const workers: ChildWorker[] = [];

  beforeAll(async () => {
    db = await createIsolatedDatabase('pgbouncer');
    bouncer = await startPgbouncer(await sparePort(), { poolSize: SERVER_CONNECTIONS });
    pooledUrl = `${bouncer.url(db.url)}?pgbouncer=true`;
    env = {
      ...DELIVERY_TEST_ENV,
      DATABASE_URL: pooledUrl,
      DATABASE_POOL_SIZE: '8',
      REDIS_KEY_PREFIX: db.redisKeyPrefix,
    };
    api = await createTestApp(env);
    receiver = await startReceiver();
  });

  afterAll(async () => {
    killStillRunning(workers);
    await api?.close();
    await receiver?.close();
    await bouncer?.stop();
    await db?.drop();
  });

  /** The PostgreSQL backends of the test's database holding a LISTEN. */
  async function listeningBackends(): Promise<number[]> {
    const rows = await api.prisma.$queryRaw<{ pid: number }[]>`
      SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN %'`;
    return rows.map((r) => r.pid);
  }

  /**
   * Posts a tweet as the owner, waits for the worker to deliver its one event, and checks the
   * receiver got it at `path` as the outbox holds it.
   */
  async function tweetDelivered(owner: Caller, endpointId: string, path: string, content: string) {
    const res = await call(api.app, 'POST', '/api/sdk/tweets', { ...owner.auth, body: { content } });
    expect(res.status).toBe(201);
    await waitFor(
      'the event delivered',
      async () =>
        (await api.prisma.webhookDelivery.count({ where: { endpointId, status: 'SUCCESS' } })) === 1,
      30_000,
    );
    const [event] = await outboxOf(api.app, owner.communityId, 'tweet.created');
    expect(receiver.at(path).map((r) => JSON.parse(r.body))).toEqual([event.payload]);
  }

  it('would break a named prepared statement: the pool is small enough to move statements between connections', async () => {
    // the failure the service avoids, shown with the same pool shape, so the next test means something
    const pool = new Pool({ connectionString: pooledUrl, max: 8 });
    const results = await Promise.allSettled(
      Array.from({ length: 200 }, (_, i) =>
        pool.query({ name: 'probe', text: 'SELECT $1::int AS n', values: [i] }),
      ),
    );
    await pool.end();
    const errors = results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as Error).message] : []));
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((m) => /prepared statement "probe" (does not exist|already exists)/.test(m))).toBe(
      true,
    );
  });

  it('answers the tweets page (the prepared-statement read) correctly, 300 times over the shared server connections', async () => {
    const owner = await memberCaller(api.app, 'jwt', { plan: 'ENTERPRISE' });
    const contents = Array.from({ length: 5 }, (_, n) => `pgbouncer ${n}`);
    for (const content of contents) {
      const res = await call(api.app, 'POST', '/api/sdk/tweets', { ...owner.auth, body: { content } });
      expect(res.status).toBe(201);
    }
    const statuses: number[] = [];
    for (let round = 0; round < 10; round++) {
      const pages = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          call(api.app, 'GET', '/api/sdk/tweets', { ...owner.auth, query: { page: 1 + (i % 3), limit: 2 } }),
        ),
      );
      for (const [i, res] of pages.entries()) {
        statuses.push(res.status);
        const page = 1 + (i % 3);
        expect(res.body.data).toMatchObject({ page, limit: 2, total: 5, hasMore: page < 3 });
        expect(res.body.data.items.map((t: { content: string }) => t.content)).toEqual(
          [...contents].reverse().slice((page - 1) * 2, page * 2),
        );
      }
    }
    expect(statuses.every((s) => s === 200)).toBe(true);
    // every statement went through pgbouncer's pool of SERVER_CONNECTIONS, never more
    const servers = await bouncer.admin('SHOW SERVERS');
    const ours = servers.filter((s) => s.database === new URL(db.url).pathname.slice(1));
    expect(ours.length).toBeGreaterThan(1);
    expect(ours.length).toBeLessThanOrEqual(SERVER_CONNECTIONS);
  });

  it('answers every other named-statement read (members, me, the delivery log) over the shared server connections', async () => {
    // each of these is a named prepared statement on a direct connection: unnamed behind PgBouncer
    const owner = await memberCaller(api.app, 'jwt', { plan: 'ENTERPRISE' });
    const keyed = await memberCaller(api.app, 'apiKey', { plan: 'ENTERPRISE' });
    const endpoint = await createEndpoint(api, owner.communityId, {
      url: `${receiver.url}/unused`,
      events: ['tweet.created'],
    });
    const reads = [
      () => call(api.app, 'GET', '/api/sdk/members', { ...keyed.auth, query: { limit: 5 } }),
      () => call(api.app, 'GET', '/api/admin/sdk/me', keyed.auth),
      () => call(api.app, 'GET', '/api/admin/sdk/me', owner.auth),
      () =>
        call(api.app, 'GET', `/api/communities/${owner.communityId}/webhooks/${endpoint.id}/deliveries`, {
          ...owner.auth,
          query: { status: 'FAILED', limit: 10 },
        }),
    ];
    for (let round = 0; round < 5; round++) {
      const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => reads[i % reads.length]()));
      for (const [i, res] of answers.entries()) {
        expect({ read: i % reads.length, status: res.status }).toEqual({
          read: i % reads.length,
          status: 200,
        });
      }
      expect(answers[0].body.data).toMatchObject({ total: 1, items: [{ userId: keyed.userId }] });
      expect(answers[3].body.data).toMatchObject({ total: 0, items: [] });
    }
  });

  it('delivers an event with the relay polling when there is no direct connection to listen on', async () => {
    const owner = await memberCaller(api.app, 'jwt', { plan: 'ENTERPRISE' });
    const endpoint = await createEndpoint(api, owner.communityId, {
      url: `${receiver.url}/polling`,
      events: ['tweet.created'],
    });
    const worker = spawnWorker({ ...env, OUTBOX_POLL_INTERVAL: '100ms' });
    workers.push(worker);
    await tweetDelivered(owner, endpoint.id, '/polling', 'polled');
    worker.process.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  });

  it('listens on DATABASE_DIRECT_URL, a session of its own beside pgbouncer, and relays', async () => {
    const owner = await memberCaller(api.app, 'jwt', { plan: 'ENTERPRISE' });
    const endpoint = await createEndpoint(api, owner.communityId, {
      url: `${receiver.url}/listening`,
      events: ['tweet.created'],
    });
    // a backstop poll that seldom runs: the notification is what normally wakes the relay here
    const worker = spawnWorker({ ...env, DATABASE_DIRECT_URL: db.url, OUTBOX_POLL_INTERVAL: '1h' });
    workers.push(worker);
    const [listener] = await waitFor('the worker LISTENing', async () => {
      const pids = await listeningBackends();
      return pids.length > 0 && pids;
    });
    // the LISTEN is a direct session, not one of pgbouncer's server connections (through pgbouncer
    // it would sit on a server connection other clients share, and no backend would stay on LISTEN)
    const serverPids = (await bouncer.admin('SHOW SERVERS')).map((s) => Number(s.remote_pid));
    expect(serverPids).not.toContain(listener);
    await tweetDelivered(owner, endpoint.id, '/listening', 'notified');
    worker.process.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  });
  it('runs the CLI through it: a user, a community and an API key the API then accepts', async () => {
    const slug = unique('pgb')
      .toLowerCase()
      .replace(/[^a-z0-9-]/g, '-');
    const email = `${slug}@example.test`;
    const cli = (...args: string[]) =>
      execFileSync(process.execPath, [join(process.env.WORKER_DIST!, 'cli', 'main.js'), ...args], {
        // compiled outside the repository (run.sh): packages from the repository's node_modules
        env: { ...process.env, ...env, NODE_PATH: join(process.cwd(), 'node_modules'), LOG_LEVEL: 'warn' },
        encoding: 'utf8',
      });
    cli('user:create', '--email', email, '--password', 'correct horse battery staple');
    cli(
      'community:create',
      '--name',
      'Through PgBouncer',
      '--slug',
      slug,
      '--owner',
      email,
      '--plan',
      'ENTERPRISE',
    );
    const key = cli('apikey:create', '--community', slug).trim().split('\n').pop()!;
    expect(key).toMatch(/^cpk_/);
    const res = await call(api.app, 'GET', '/api/sdk/tweets', { apiKey: key });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ page: 1, total: 0, items: [] });
  });

  it('migrates on DATABASE_DIRECT_URL (its session advisory lock needs PostgreSQL itself), whatever DATABASE_URL is', async () => {
    const name = `${process.env.TEST_DATABASE_NAME}_pgbouncer_migrate`;
    const admin = new Client({ connectionString: process.env.TEST_DATABASE_ADMIN_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    try {
      const direct = new URL(process.env.TEST_DATABASE_ADMIN_URL!);
      direct.pathname = `/${name}`;
      const root = resolve(__dirname, '..', '..');
      execFileSync(
        process.execPath,
        [resolve(root, 'node_modules/prisma/build/index.js'), 'migrate', 'deploy'],
        {
          cwd: root,
          // DATABASE_URL leads nowhere: only the direct URL can have done the work
          env: {
            ...process.env,
            DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/nowhere?pgbouncer=true',
            DATABASE_DIRECT_URL: direct.toString(),
          },
          stdio: ['ignore', 'ignore', 'inherit'],
        },
      );
      const migrated = new Client({ connectionString: direct.toString() });
      await migrated.connect();
      const { rows } = await migrated.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL',
      );
      await migrated.end();
      expect(rows[0].n).toBeGreaterThan(0);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  });
});
