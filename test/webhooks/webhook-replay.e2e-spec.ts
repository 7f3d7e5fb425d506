import { ReplayBatchesStore } from '../../src/modules/webhooks/worker/replay-batches.store';
import { useTestApp } from '../utils/app';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { DELIVERY_TEST_ENV } from '../utils/worker';

const hooks = (communityId: string) => `/api/communities/${communityId}/webhooks`;
const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;

type Member = Awaited<ReturnType<typeof memberWithToken>>;

/**
 * Bulk replay, the API's side (docs/api.md#bulk-replay): the selection a dry run counts, the replay row, its
 * cap, reads and cancel, validation and tenant isolation. The log is seeded in SQL (events already relayed,
 * attempts finished), so no worker takes part; test/webhooks/webhook-replay-worker.e2e-spec.ts sends them.
 */
describe('webhook bulk replay: selection and routes', () => {
  const api = useTestApp(DELIVERY_TEST_ENV);

  async function addEndpoint(member: Member): Promise<string> {
    const created = await call(api.app, 'POST', hooks(member.community.id), {
      token: member.token,
      // never sent to: no worker runs here
      body: { url: `http://127.0.0.1:9/${unique('hook')}`, events: ['tweet.created', 'comment.created'] },
    });
    expect(created.status).toBe(201);
    return created.body.data.id as string;
  }

  /**
   * `count` events of `type` raised `agoMs` ago, relayed, each with one finished attempt on the endpoint
   * (attempt 2 when `retried`: attempt 1 failed before it). Returns the message ids.
   */
  async function seed(
    communityId: string,
    endpointId: string,
    count: number,
    attempt: { status: 'SUCCESS' | 'FAILED'; responseStatus: number | null; type?: string; agoMs?: number },
  ): Promise<string[]> {
    const prefix = unique('msg_').replace(/[^0-9A-Za-z_]/g, '');
    const type = attempt.type ?? 'tweet.created';
    const at = new Date(Date.now() - (attempt.agoMs ?? HOUR_MS));
    await api.prisma.$executeRaw`
      INSERT INTO outbox_events (community_id, message_id, event_type, payload, created_at, relayed_at)
      SELECT ${communityId}::uuid, ${prefix}::text || i, ${type}::text,
             jsonb_build_object('id', ${prefix}::text || i, 'type', ${type}::text, 'data', '{}'::jsonb),
             ${at}::timestamptz, ${at}::timestamptz
      FROM generate_series(1, ${count}::int) i
      ON CONFLICT (message_id) DO NOTHING`;
    await api.prisma.$executeRaw`
      INSERT INTO webhook_deliveries
        (id, community_id, endpoint_id, message_id, event_type, attempt, status, response_status, created_at, updated_at)
      SELECT gen_random_uuid(), ${communityId}::uuid, ${endpointId}::uuid, ${prefix}::text || i, ${type}::text, 1,
             ${attempt.status}::"DeliveryStatus", ${attempt.responseStatus}::int, ${at}::timestamptz,
             ${at}::timestamptz
      FROM generate_series(1, ${count}::int) i`;
    return Array.from({ length: count }, (_, i) => `${prefix}${i + 1}`);
  }

  function replay(member: Member, body: Record<string, unknown>) {
    return call(api.app, 'POST', `${hooks(member.community.id)}/replays`, { token: member.token, body });
  }

  const since = () => new Date(Date.now() - DAY_MS).toISOString();

  it('dry run: counts per endpoint the messages whose latest attempt matches, and writes nothing', async () => {
    const owner = await memberWithToken(api.app, { plan: 'PRO' });
    const [a, b] = [await addEndpoint(owner), await addEndpoint(owner)];
    await seed(owner.community.id, a, 3, { status: 'FAILED', responseStatus: 503 });
    await seed(owner.community.id, a, 2, { status: 'FAILED', responseStatus: null });
    await seed(owner.community.id, a, 4, { status: 'SUCCESS', responseStatus: 200 });
    await seed(owner.community.id, b, 5, { status: 'FAILED', responseStatus: 404, type: 'comment.created' });
    // outside the window: raised two days ago
    await seed(owner.community.id, b, 7, { status: 'FAILED', responseStatus: 500, agoMs: 2 * DAY_MS });
    // a message failed once and then succeeded: its latest attempt is SUCCESS, not selected as FAILED
    const [healed] = await seed(owner.community.id, a, 1, { status: 'FAILED', responseStatus: 500 });
    await api.prisma.$executeRaw`
      INSERT INTO webhook_deliveries (id, community_id, endpoint_id, message_id, event_type, attempt, status, response_status, updated_at)
      VALUES (gen_random_uuid(), ${owner.community.id}::uuid, ${a}::uuid, ${healed}, 'tweet.created', 2, 'SUCCESS', 200, now())`;

    const cases: [Record<string, unknown>, number, Record<string, number>][] = [
      [{}, 10, { [a]: 5, [b]: 5 }],
      [{ status: 'SUCCESS' }, 5, { [a]: 5 }],
      [{ status: 'ANY' }, 15, { [a]: 10, [b]: 5 }],
      [{ responseStatus: [503] }, 3, { [a]: 3 }],
      [{ responseStatus: ['5xx'] }, 3, { [a]: 3 }],
      [{ responseStatus: ['network', '4xx'] }, 7, { [a]: 2, [b]: 5 }],
      [{ eventTypes: ['comment.created'] }, 5, { [b]: 5 }],
      [{ endpointIds: [a] }, 5, { [a]: 5 }],
      [{ since: new Date(Date.now() - 3 * DAY_MS).toISOString() }, 17, { [a]: 5, [b]: 12 }],
    ];
    for (const [filters, count, byEndpoint] of cases) {
      const res = await replay(owner, { since: since(), ...filters, dryRun: true });
      expect({ filters, status: res.status, data: res.body.data }).toEqual({
        filters,
        status: 200,
        data: { count, byEndpoint },
      });
    }
    expect(await api.prisma.webhookReplay.count({ where: { communityId: owner.community.id } })).toBe(0);
  });

  it('creates a queued replay whose total is the dry run count; reads, lists newest first, cancels', async () => {
    const owner = await memberWithToken(api.app, { plan: 'PRO' });
    const endpoint = await addEndpoint(owner);
    await seed(owner.community.id, endpoint, 4, { status: 'FAILED', responseStatus: 500 });
    const dry = await replay(owner, { since: since(), dryRun: true });
    const first = await replay(owner, { since: since() });
    expect(first.status).toBe(202);
    expect(first.body.data).toEqual({ id: expect.any(String), state: 'queued', total: dry.body.data.count });
    expect(dry.body.data.count).toBe(4);
    const windowStart = since();
    const second = await replay(owner, {
      since: windowStart,
      status: 'ANY',
      eventTypes: ['tweet.created'],
      responseStatus: [503, '4xx'],
    });
    expect(second.status).toBe(202);

    const read = await call(api.app, 'GET', `${hooks(owner.community.id)}/replays/${first.body.data.id}`, {
      token: owner.token,
    });
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({
      id: first.body.data.id,
      state: 'queued',
      total: 4,
      queued: 0,
      skipped: 0,
      createdAt: expect.any(String),
      finishedAt: null,
      // what it selects (the portal's Replays page shows it): every endpoint when none was named, the
      // window's end the creation time when none was given, the defaults spelled out
      since: expect.any(String),
      until: expect.any(String),
      endpointIds: [endpoint],
      eventTypes: null,
      status: 'FAILED',
      responseStatus: null,
    });
    expect(Date.parse(read.body.data.until)).toBeGreaterThan(Date.parse(read.body.data.since));

    const list = await call(api.app, 'GET', `${hooks(owner.community.id)}/replays?limit=1`, {
      token: owner.token,
    });
    expect(list.status).toBe(200);
    expect(list.body.data).toMatchObject({ page: 1, limit: 1, total: 2, hasMore: true });
    expect(list.body.data.items.map((r: { id: string }) => r.id)).toEqual([second.body.data.id]);
    expect(list.body.data.items[0]).toMatchObject({
      since: new Date(windowStart).toISOString(),
      status: 'ANY',
      eventTypes: ['tweet.created'],
      responseStatus: ['503', '4xx'],
    });

    const cancelled = await call(
      api.app,
      'POST',
      `${hooks(owner.community.id)}/replays/${first.body.data.id}/cancel`,
      { token: owner.token },
    );
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toMatchObject({ state: 'cancelled', finishedAt: expect.any(String) });
  });

  it('a fourth replay queued or running is 409; a cancelled one frees its place', async () => {
    const owner = await memberWithToken(api.app, { plan: 'PRO' });
    await addEndpoint(owner);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await replay(owner, { since: since() });
      expect(res.status).toBe(202);
      ids.push(res.body.data.id);
    }
    const fourth = await replay(owner, { since: since() });
    expect(fourth.status).toBe(409);
    expect(fourth.body.code).toBe('CONFLICT');
    // the dry run writes nothing, so it is never capped
    expect((await replay(owner, { since: since(), dryRun: true })).status).toBe(200);
    await call(api.app, 'POST', `${hooks(owner.community.id)}/replays/${ids[0]}/cancel`, {
      token: owner.token,
    });
    expect((await replay(owner, { since: since() })).status).toBe(202);
  });

  it('refuses a window over 30 days or past the retention, over 100 endpoint ids, bad statuses: 400', async () => {
    const owner = await memberWithToken(api.app, { plan: 'PRO' });
    await addEndpoint(owner);
    const now = Date.now();
    const bad: [Record<string, unknown>, string][] = [
      [{ since: new Date(now - 31 * DAY_MS).toISOString() }, 'since'],
      // the retention here is the default 30 days: a 2-day window that starts 31 days ago
      [
        {
          since: new Date(now - 31 * DAY_MS).toISOString(),
          until: new Date(now - 29 * DAY_MS).toISOString(),
        },
        'since',
      ],
      [{ since: new Date(now).toISOString(), until: new Date(now - HOUR_MS).toISOString() }, 'since'],
      [
        { since: since(), endpointIds: Array.from({ length: 101 }, () => crypto.randomUUID()) },
        'endpointIds',
      ],
      [{ since: since(), status: 'PENDING' }, 'status'],
      [{ since: since(), responseStatus: ['6xx'] }, 'responseStatus'],
      [{ since: since(), responseStatus: [99] }, 'responseStatus'],
      [{ since: 'yesterday' }, 'since'],
    ];
    for (const [body, field] of bad) {
      const res = await replay(owner, body);
      expect({ body, status: res.status, code: res.body.code }).toEqual({
        body,
        status: 400,
        code: 'VALIDATION_ERROR',
      });
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    }
  });

  it("tenant isolation: B cannot name A's endpoint (404), read or cancel A's replay (404), nor see it listed", async () => {
    const a = await memberWithToken(api.app, { plan: 'PRO' });
    const b = await memberWithToken(api.app, { plan: 'PRO' });
    const endpointOfA = await addEndpoint(a);
    await addEndpoint(b);
    await seed(a.community.id, endpointOfA, 2, { status: 'FAILED', responseStatus: 500 });
    const named = await replay(b, { since: since(), endpointIds: [endpointOfA], dryRun: true });
    expect(named.status).toBe(404);
    expect((await replay(b, { since: since(), endpointIds: [endpointOfA] })).status).toBe(404);
    // B's default selection is B's endpoints only
    expect((await replay(b, { since: since(), dryRun: true })).body.data).toEqual({
      count: 0,
      byEndpoint: {},
    });

    const ofA = (await replay(a, { since: since() })).body.data.id as string;
    for (const [method, path] of [
      ['GET', `${hooks(b.community.id)}/replays/${ofA}`],
      ['POST', `${hooks(b.community.id)}/replays/${ofA}/cancel`],
    ] as const) {
      expect((await call(api.app, method, path, { token: b.token })).status).toBe(404);
    }
    const listOfB = await call(api.app, 'GET', `${hooks(b.community.id)}/replays`, { token: b.token });
    expect(listOfB.body.data.items).toEqual([]);
    // A's own path with B's token: B is not a member of A
    expect((await call(api.app, 'GET', `${hooks(a.community.id)}/replays`, { token: b.token })).status).toBe(
      403,
    );
    expect(
      (await call(api.app, 'GET', `${hooks(a.community.id)}/replays/${ofA}`, { token: a.token })).body.data
        .state,
    ).toBe('queued');
  });

  it('cancel stops queuing: a batch after the cancel takes nothing of it', async () => {
    const owner = await memberWithToken(api.app, { plan: 'PRO' });
    const endpoint = await addEndpoint(owner);
    await seed(owner.community.id, endpoint, 6, { status: 'FAILED', responseStatus: 500 });
    const id = (await replay(owner, { since: since() })).body.data.id as string;
    // the workers' store, driven here batch by batch: 2 attempts, then the cancel
    const batches = new ReplayBatchesStore(api.prisma);
    let first = await batches.takeBatch(2, 1_000);
    // other tests' replays may come first: take until this one's batch
    while (first && first.replayId !== id) first = await batches.takeBatch(2, 1_000);
    expect(first).toMatchObject({ replayId: id, done: false });
    expect(first!.jobs).toHaveLength(2);
    await call(api.app, 'POST', `${hooks(owner.community.id)}/replays/${id}/cancel`, { token: owner.token });
    for (let next = await batches.takeBatch(2, 1_000); next; next = await batches.takeBatch(2, 1_000))
      expect(next.replayId).not.toBe(id);
    expect(await api.prisma.webhookDelivery.count({ where: { replayId: id } })).toBe(2);
    const read = await call(api.app, 'GET', `${hooks(owner.community.id)}/replays/${id}`, {
      token: owner.token,
    });
    expect(read.body.data).toMatchObject({ state: 'cancelled', queued: 2, skipped: 0 });
  });
});
