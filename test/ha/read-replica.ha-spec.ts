import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import type { Counter } from 'prom-client';
import { MetricsRegistry } from '../../src/metrics/metrics-registry';
import { createTestApp, TestApp } from '../utils/app';
import { createApiKey, memberWithToken } from '../utils/factories';
import { waitFor } from '../utils/worker';

// DATABASE_READ_URL on the formation's standby (test/ha/cluster.sh's read port): the lag-tolerant reads
// go there, a caller who just wrote reads from the primary, and past DATABASE_READ_MAX_LAG every read does.
jest.setTimeout(300_000);

const HA_DIR = process.env.HA_DIR!;
const cfg = Object.fromEntries(
  readFileSync(join(HA_DIR, 'env'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
);
const MAX_LAG_S = 2;

describe('reads from DATABASE_READ_URL', () => {
  let api: TestApp;
  let standby: Client;
  let writer: { key: string };
  let reader: { key: string };

  beforeAll(async () => {
    api = await createTestApp({
      DATABASE_URL: cfg.WRITE_URL,
      DATABASE_READ_URL: cfg.READ_URL,
      DATABASE_READ_MAX_LAG: `${MAX_LAG_S}s`,
      DATABASE_READ_LAG_CHECK_INTERVAL: '250ms',
    });
    const owner = await memberWithToken(api.app, { plan: 'PRO', role: 'OWNER' });
    const other = await memberWithToken(api.app, {
      plan: 'PRO',
      role: 'OWNER',
      communityId: owner.community.id,
    });
    writer = await createApiKey(api.app, owner.community.id, owner.user.id);
    reader = await createApiKey(api.app, owner.community.id, other.user.id);
    standby = new Client({ connectionString: cfg.READ_URL });
    await standby.connect();
  });

  afterAll(async () => {
    await standby?.query('SELECT pg_wal_replay_resume()').catch(() => undefined);
    await standby?.end();
    await api?.close();
  });

  const count = async (target: string, reason: string) =>
    (
      await (api.app.get(MetricsRegistry).registry.getSingleMetric('database_reads_total') as Counter).get()
    ).values.find((v) => v.labels.target === target && v.labels.reason === reason)?.value ?? 0;
  const list = (key: string) =>
    api.app.inject({ method: 'GET', url: '/api/sdk/tweets?limit=50', headers: { 'x-api-key': key } });
  const post = (key: string, content: string) =>
    api.app.inject({
      method: 'POST',
      url: '/api/sdk/tweets',
      headers: { 'x-api-key': key },
      payload: { content },
    });
  const lag = async () =>
    Number(
      (await api.app.get(MetricsRegistry).registry.getSingleMetricAsString('database_replica_lag_seconds'))
        .split('\n')
        .find((l) => l.startsWith('database_replica_lag_seconds '))!
        .split(' ')[1],
    );

  it('sends a paged list to the replica once its lag is known, and shows the lag', async () => {
    await list(reader.key); // the first read starts the measuring (and goes to the primary)
    await waitFor('a lag measured', async () => (await lag()) >= 0);
    const before = await count('replica', 'fresh');
    expect((await list(reader.key)).statusCode).toBe(200);
    expect(await count('replica', 'fresh')).toBe(before + 1);
    expect((await standby.query('SELECT pg_is_in_recovery() AS r')).rows[0].r).toBe(true);
  });

  it('reads what the same caller just wrote from the primary (read-your-writes)', async () => {
    // hold the replica back, so that a read from it could not see the write
    await standby.query('SELECT pg_wal_replay_pause()');
    try {
      const before = await count('primary', 'caller_wrote');
      expect((await post(writer.key, 'mine, just written')).statusCode).toBe(201);
      expect((await list(writer.key)).body).toContain('mine, just written');
      // another caller reads the paused replica, which has not replayed it: the rule, not luck, held above
      expect((await list(reader.key)).body).not.toContain('mine, just written');
      expect(await count('primary', 'caller_wrote')).toBe(before + 1);
    } finally {
      await standby.query('SELECT pg_wal_replay_resume()');
    }
  });

  it('sends every read back to the primary past DATABASE_READ_MAX_LAG, and to the replica once it caught up', async () => {
    await standby.query('SELECT pg_wal_replay_pause()');
    try {
      // commits arrive that the replica does not replay: its lag grows past the maximum
      const writes = setInterval(() => void post(writer.key, `tick ${Date.now()}`), 200);
      try {
        await waitFor('the replica past its maximum lag', async () => (await lag()) > MAX_LAG_S, 30_000);
      } finally {
        clearInterval(writes);
      }
      const before = await count('primary', 'lagging');
      expect((await list(reader.key)).statusCode).toBe(200);
      expect(await count('primary', 'lagging')).toBe(before + 1);
    } finally {
      await standby.query('SELECT pg_wal_replay_resume()');
    }
    await waitFor('the replica caught up', async () => (await lag()) <= MAX_LAG_S, 30_000);
    const before = await count('replica', 'fresh');
    await list(reader.key);
    expect(await count('replica', 'fresh')).toBe(before + 1);
  });
});
