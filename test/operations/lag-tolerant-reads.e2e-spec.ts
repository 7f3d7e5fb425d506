import type { Counter } from 'prom-client';
import { MetricsRegistry } from '../../src/metrics/metrics-registry';
import { createTestApp, TestApp } from '../utils/app';
import { memberWithToken } from '../utils/factories';
import { call } from '../utils/http';
import { createEndpoint, waitFor } from '../utils/worker';

/**
 * Which reads ask for DATABASE_READ_URL (docs/architecture.md#read-replicas). The "replica" here is the
 * test's own database (a primary reports a lag of 0): what is tested is that a route's statement goes
 * through the replica's routing at all, counted by database_reads_total. Where each read then lands, and
 * read-your-writes, are tested on a real standby in test/ha/read-replica.ha-spec.ts.
 */
describe('reads that tolerate lag go through DATABASE_READ_URL', () => {
  let api: TestApp;

  beforeAll(async () => {
    api = await createTestApp({
      DATABASE_READ_URL: process.env.DATABASE_URL!,
      DATABASE_READ_LAG_CHECK_INTERVAL: '100ms',
    });
  });
  afterAll(() => api?.close());

  const routedReads = async () =>
    (
      await (api.app.get(MetricsRegistry).registry.getSingleMetric('database_reads_total') as Counter).get()
    ).values.reduce((sum, v) => sum + v.value, 0);

  it("the endpoints' figures and the endpoint list's success rates", async () => {
    const owner = await memberWithToken(api.app, { plan: 'PRO', role: 'OWNER' });
    const { id } = await createEndpoint(api, owner.community.id, {
      url: 'https://receiver.example/hook',
      events: ['tweet.created'],
    });
    const hooks = `/api/communities/${owner.community.id}/webhooks`;

    let before = await routedReads();
    const figures = await call(api.app, 'GET', `${hooks}/${id}/stats`, { token: owner.token });
    expect(figures.status).toBe(200);
    expect(await routedReads()).toBe(before + 1);

    before = await routedReads();
    const list = await call(api.app, 'GET', hooks, { token: owner.token });
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.body)).toContain(id);
    expect(await routedReads()).toBe(before + 1);

    // and they land on the replica once its lag is known and the caller's own writes are old enough
    await waitFor('a read served by the replica', async () => {
      const fresh = (
        await (api.app.get(MetricsRegistry).registry.getSingleMetric('database_reads_total') as Counter).get()
      ).values.find((v) => v.labels.target === 'replica')?.value;
      await call(api.app, 'GET', `${hooks}/${id}/stats`, { token: owner.token });
      return (fresh ?? 0) > 0;
    });
  });
});
