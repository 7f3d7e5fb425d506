import type { SubscribableEvent } from '../../src/modules/events/event-catalog';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { raiseEvent } from '../utils/synthetic-event';
import { outboxRetentionOf, waitFor } from '../utils/worker';
import { useDeliveryStack } from '../utils/delivery-stack';

const hooks = (communityId: string) => `/api/communities/${communityId}/webhooks`;
const HOUR_MS = 3_600_000;

interface Bucket {
  start: string;
  attempts: number;
  succeeded: number;
  failed: number;
  successRate: number | null;
  p50Ms: number | null;
  p95Ms: number | null;
}

/** An endpoint's figures over time (docs/api.md#webhooks, "Figures"), from its hourly buckets. */
describe('webhook figures: GET .../webhooks/{id}/stats', () => {
  const stack = useDeliveryStack();

  const raise = async (communityId: string, type?: SubscribableEvent) =>
    (await raiseEvent(stack.api, communityId, type)).id;

  async function endpoint(extra: Record<string, unknown> = {}) {
    const owner = await memberWithToken(stack.api.app, { plan: 'PRO' });
    const path = `/${unique('fig')}`;
    const created = await call(stack.api.app, 'POST', hooks(owner.community.id), {
      token: owner.token,
      body: { url: stack.receiver.url + path, events: ['tweet.created'], ...extra },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    return { ...owner, id, path, stats: `${hooks(owner.community.id)}/${id}/stats` };
  }

  /** The stored bins of the endpoint's hours, added up. */
  async function storedBins(endpointId: string): Promise<number[]> {
    const rows = await stack.api.prisma.webhookAttemptStats.findMany({ where: { endpointId } });
    return rows
      .map((r) => r.latencyCounts)
      .reduce((sum, bins) => bins.map((n, i) => n + (sum[i] ?? 0)), [] as number[]);
  }

  it('counts every recorded outcome (retries, test probes) per hour, with their latencies in the bins', async () => {
    const ep = await endpoint();
    let failOnce = '';
    const failed = new Set<string>();
    let delayed = false;
    stack.receiver.respond(ep.path, async (request) => {
      const id = request.headers['webhook-id'];
      if (id === failOnce && !failed.has(id)) {
        failed.add(id);
        return { status: 500 };
      }
      // one answer takes a while, so the latencies spread over more than one bin
      if (!delayed) {
        delayed = true;
        await new Promise((r) => setTimeout(r, 120));
      }
      return { status: 200 };
    });
    await raise(ep.community.id);
    await raise(ep.community.id);
    failOnce = await raise(ep.community.id);
    await waitFor('every event delivered, the failed one on its retry', async () =>
      stack.api.prisma.webhookDelivery
        .count({ where: { endpointId: ep.id, status: 'SUCCESS' } })
        .then((n) => n === 3),
    );
    const probe = await call(stack.api.app, 'POST', `${hooks(ep.community.id)}/${ep.id}/test`, {
      token: ep.token,
    });
    expect(probe.status).toBe(200);

    const res = await call(stack.api.app, 'GET', ep.stats, { token: ep.token });
    expect(res.status).toBe(200);
    const { period, bucketSeconds, buckets, totals } = res.body.data as {
      period: string;
      bucketSeconds: number;
      buckets: Bucket[];
      totals: Omit<Bucket, 'start'>;
    };
    expect(period).toBe('24h');
    expect(bucketSeconds).toBe(3600);
    expect(buckets).toHaveLength(24);
    // 3 events and the probe succeeded, 1 attempt failed before its retry
    expect(totals).toMatchObject({ attempts: 5, succeeded: 4, failed: 1, successRate: 0.8 });
    const current = buckets[23];
    // the attempts were recorded in this hour, or in the previous one when the test crossed the hour
    expect(current.attempts + buckets[22].attempts).toBe(5);

    // each attempt's duration is in the bin the database's bounds give it
    const attempts = await stack.api.prisma.webhookDelivery.findMany({ where: { endpointId: ep.id } });
    expect(attempts).toHaveLength(5);
    const [{ bounds }] = await stack.api.prisma.$queryRaw<{ bounds: number[] }[]>`
      SELECT webhook_latency_bounds() AS bounds`;
    const expected = new Array<number>(bounds.length + 1).fill(0);
    for (const a of attempts) expected[bounds.filter((b) => a.durationMs! >= b).length]++;
    expect(await storedBins(ep.id)).toEqual(expected);
    const slowest = Math.max(...attempts.map((a) => a.durationMs!));
    expect(slowest).toBeGreaterThanOrEqual(120);
    // p95 lies in the slowest attempt's bin, the median no higher
    const slowBin = bounds.filter((b) => slowest >= b).length;
    expect(totals.p95Ms).toBeGreaterThanOrEqual(bounds[slowBin - 1]);
    expect(totals.p95Ms).toBeLessThanOrEqual(bounds[slowBin] ?? bounds[bounds.length - 1]);
    expect(totals.p50Ms).not.toBeNull();
    expect(totals.p50Ms!).toBeLessThanOrEqual(totals.p95Ms!);

    // the endpoint card's 24 h figures are the same buckets
    const list = await call(stack.api.app, 'GET', hooks(ep.community.id), { token: ep.token });
    expect(list.body.data.items[0]).toMatchObject({ id: ep.id, attempts24h: 5, succeeded24h: 4 });
  });

  it("counts a FIFO endpoint's successes, which its queue's claim records", async () => {
    const ep = await endpoint({ ordering: 'fifo' });
    await raise(ep.community.id);
    await raise(ep.community.id);
    await waitFor('both delivered', () =>
      stack.api.prisma.webhookDelivery
        .count({ where: { endpointId: ep.id, status: 'SUCCESS' } })
        .then((n) => n === 2),
    );
    const res = await call(stack.api.app, 'GET', ep.stats, { token: ep.token });
    expect(res.body.data.totals).toMatchObject({ attempts: 2, succeeded: 2, failed: 0, successRate: 1 });
  });

  it('reads the buckets only: the figures stand after the attempts are gone', async () => {
    const ep = await endpoint();
    await raise(ep.community.id);
    await waitFor('delivered', () =>
      stack.api.prisma.webhookDelivery.count({ where: { endpointId: ep.id, status: 'SUCCESS' } }),
    );
    const before = await call(stack.api.app, 'GET', ep.stats, { token: ep.token });
    expect(before.body.data.totals.attempts).toBe(1);
    await stack.api.prisma.webhookDelivery.deleteMany({ where: { endpointId: ep.id } });
    const after = await call(stack.api.app, 'GET', ep.stats, { token: ep.token });
    expect(after.body.data).toEqual(before.body.data);
    const list = await call(stack.api.app, 'GET', hooks(ep.community.id), { token: ep.token });
    expect(list.body.data.items[0]).toMatchObject({ attempts24h: 1, succeeded24h: 1 });
  });

  it('fills every hour of the period, ending with the current UTC hour; 7d is 168 hours', async () => {
    const ep = await endpoint();
    // a bucket 30 hours old: in the week, not in the day
    const [{ hour }] = await stack.api.prisma.$queryRaw<{ hour: Date }[]>`
      SELECT date_trunc('hour', now(), 'UTC') AS hour`;
    await stack.api.prisma.webhookAttemptStats.create({
      data: {
        communityId: ep.community.id,
        endpointId: ep.id,
        bucketStart: new Date(hour.getTime() - 30 * HOUR_MS),
        attempts: 3,
        succeeded: 1,
        failed: 2,
        latencyCounts: [0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0],
      },
    });
    const day = await call(stack.api.app, 'GET', ep.stats, { token: ep.token });
    const dayBuckets = day.body.data.buckets as Bucket[];
    expect(dayBuckets).toHaveLength(24);
    expect(dayBuckets[23].start).toBe(hour.toISOString());
    expect(dayBuckets[0].start).toBe(new Date(hour.getTime() - 23 * HOUR_MS).toISOString());
    dayBuckets.forEach((b, i) => {
      if (i > 0) expect(Date.parse(b.start) - Date.parse(dayBuckets[i - 1].start)).toBe(HOUR_MS);
      expect(b).toMatchObject({ attempts: 0, successRate: null, p50Ms: null, p95Ms: null });
    });
    expect(day.body.data.totals).toMatchObject({ attempts: 0, successRate: null, p50Ms: null });

    const week = await call(stack.api.app, 'GET', `${ep.stats}?period=7d`, { token: ep.token });
    expect(week.status).toBe(200);
    const weekBuckets = week.body.data.buckets as Bucket[];
    expect(week.body.data).toMatchObject({ period: '7d', bucketSeconds: 3600 });
    expect(weekBuckets).toHaveLength(168);
    expect(weekBuckets[167 - 30]).toMatchObject({
      attempts: 3,
      succeeded: 1,
      failed: 2,
      successRate: 0.3333,
    });
    // 3 latencies in [10, 25): the median half-way
    expect(weekBuckets[167 - 30].p50Ms).toBe(18);
    expect(week.body.data.totals).toMatchObject({ attempts: 3, failed: 2 });
  });

  it('refuses a period other than 24h or 7d, naming it', async () => {
    const ep = await endpoint();
    for (const period of ['30d', '', '24H']) {
      const res = await call(stack.api.app, 'GET', `${ep.stats}?period=${period}`, { token: ep.token });
      expect(res.status).toBe(400);
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain('period');
    }
  });

  it("answers 404 for another community's endpoint, and 403 to a MEMBER", async () => {
    const a = await endpoint();
    const b = await endpoint();
    const crossed = await call(stack.api.app, 'GET', `${hooks(b.community.id)}/${a.id}/stats`, {
      token: b.token,
    });
    expect(crossed.status).toBe(404);
    expect(crossed.body.code).toBe('NOT_FOUND');
    const member = await memberWithToken(stack.api.app, { plan: 'PRO', role: 'MEMBER' });
    const asMember = await call(stack.api.app, 'GET', `${hooks(member.community.id)}/${a.id}/stats`, {
      token: member.token,
    });
    expect(asMember.status).toBe(403);
    expect(asMember.body.code).toBe('FORBIDDEN');
  });

  it("lets a portal session read its own community's figures only", async () => {
    const a = await endpoint();
    const b = await endpoint();
    const link = await call(stack.api.app, 'POST', `${hooks(a.community.id)}/portal-links`, {
      token: a.token,
    });
    expect(link.status).toBe(201);
    const exchanged = await call(stack.api.app, 'POST', '/api/webhooks/portal-sessions', {
      body: { token: new URL(link.body.data.url as string).hash.replace(/^#token=/, '') },
    });
    const session = exchanged.body.data.accessToken as string;
    const own = await call(stack.api.app, 'GET', a.stats, { token: session });
    expect(own.status).toBe(200);
    expect(own.body.data.buckets).toHaveLength(24);
    const other = await call(stack.api.app, 'GET', b.stats, { token: session });
    expect([401, 403]).toContain(other.status);
  });

  it('goes with its endpoint, and the worker prunes buckets older than 8 days', async () => {
    const ep = await endpoint();
    const gone = await endpoint();
    const bucket = (endpointId: string, communityId: string, daysAgo: number) => ({
      communityId,
      endpointId,
      bucketStart: new Date(Date.now() - daysAgo * 24 * HOUR_MS),
      attempts: 1,
      succeeded: 1,
      failed: 0,
      latencyCounts: [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    });
    await stack.api.prisma.webhookAttemptStats.createMany({
      data: [
        bucket(ep.id, ep.community.id, 9),
        bucket(ep.id, ep.community.id, 7),
        bucket(gone.id, gone.community.id, 1),
      ],
    });
    await call(stack.api.app, 'DELETE', `${hooks(gone.community.id)}/${gone.id}`, { token: gone.token });
    expect(await stack.api.prisma.webhookAttemptStats.count({ where: { endpointId: gone.id } })).toBe(0);

    await outboxRetentionOf(stack.api).prune();
    const left = await stack.api.prisma.webhookAttemptStats.findMany({ where: { endpointId: ep.id } });
    expect(left.map((r) => Math.round((Date.now() - r.bucketStart.getTime()) / (24 * HOUR_MS)))).toEqual([7]);
  });
});
