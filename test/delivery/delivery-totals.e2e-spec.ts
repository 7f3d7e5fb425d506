import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client } from 'pg';
import type { DeliveryStatus } from '../../src/generated/prisma/enums';
import { newMessageId } from '../../src/modules/events/event-body';
import { DeliveryAttemptsStore } from '../../src/modules/webhooks/worker/delivery-attempts.store';
import { DeliveryProcessor } from '../../src/modules/webhooks/worker/delivery.processor';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { createEmptyDatabase } from '../utils/isolated-database';
import { raiseEvent } from '../utils/synthetic-event';
import { waitFor } from '../utils/worker';
import { useDeliveryStack } from '../utils/delivery-stack';

const hooks = (communityId: string) => `/api/communities/${communityId}/webhooks`;
const STATUSES: DeliveryStatus[] = ['PENDING', 'SUCCESS', 'FAILED'];
const HOUR_MS = 3600_000;

/**
 * The delivery log's `total` (docs/product-decisions.md#4-lists) comes from counter rows that triggers on
 * webhook_deliveries keep in the same transaction as each change (migration delivery_status_counters),
 * not from count(*). Every path that writes an attempt or changes its status must leave them exact.
 */
describe('delivery log totals', () => {
  const stack = useDeliveryStack();
  let store: DeliveryAttemptsStore;
  beforeAll(() => {
    store = stack.worker.context.get(DeliveryAttemptsStore);
  });

  /** A PRO community with an OWNER, and an endpoint created through the API on its own receiver path. */
  async function setUp() {
    const member = await memberWithToken(stack.api.app, { plan: 'PRO' });
    const path = `/${unique('totals')}`;
    const created = await call(stack.api.app, 'POST', hooks(member.community.id), {
      token: member.token,
      body: { url: stack.receiver.url + path, events: ['tweet.created'] },
    });
    expect(created.status).toBe(201);
    return { ...member, communityId: member.community.id, endpointId: created.body.data.id as string, path };
  }
  type Setup = Awaited<ReturnType<typeof setUp>>;

  const raise = (communityId: string) => raiseEvent(stack.api, communityId);

  /** The counters' sums and count(*) per status, read in ONE statement (one snapshot): equal at any moment. */
  async function countersAndCounts(endpointId: string) {
    const rows = await stack.api.prisma.$queryRaw<
      { status: DeliveryStatus; counted: number; actual: number }[]
    >`
      SELECT s.status,
             (SELECT coalesce(sum(value), 0)::int FROM webhook_delivery_counters c
               WHERE c.endpoint_id = ${endpointId}::uuid AND c.status = s.status) AS counted,
             (SELECT count(*)::int FROM webhook_deliveries d
               WHERE d.endpoint_id = ${endpointId}::uuid AND d.status = s.status) AS actual
      FROM unnest(enum_range(NULL::"DeliveryStatus")) AS s(status) ORDER BY s.status`;
    return {
      counted: Object.fromEntries(rows.map((r) => [r.status, r.counted])),
      actual: Object.fromEntries(rows.map((r) => [r.status, r.actual])),
    };
  }

  /** What the log answers as `total` (and `hasMore`) for each status filter and none, against count(*). */
  async function expectExactTotals(s: Setup, expected?: Partial<Record<DeliveryStatus, number>>) {
    const { counted, actual } = await countersAndCounts(s.endpointId);
    expect(counted).toEqual(actual);
    if (expected) expect(actual).toEqual({ PENDING: 0, SUCCESS: 0, FAILED: 0, ...expected });
    for (const status of [undefined, ...STATUSES]) {
      const res = await call(
        stack.api.app,
        'GET',
        `${hooks(s.communityId)}/${s.endpointId}/deliveries?limit=1${status ? `&status=${status}` : ''}`,
        { token: s.token },
      );
      expect(res.status).toBe(200);
      const want = status ? actual[status] : STATUSES.reduce((n, st) => n + actual[st], 0);
      expect({ status, total: res.body.data.total, hasMore: res.body.data.hasMore }).toEqual({
        status,
        total: want,
        hasMore: want > 1,
      });
    }
  }

  function settled(endpointId: string, count: number) {
    return waitFor(`${count} finished attempts`, async () => {
      const rows = await stack.api.prisma.webhookDelivery.findMany({ where: { endpointId } });
      return rows.length === count && rows.every((r) => r.status !== 'PENDING') && rows;
    });
  }

  it('stays exact through the relay, batched claims and finishes, and retries, at every moment', async () => {
    const s = await setUp();
    // the first two events fail once (attempt 1 FAILED with a retry, attempt 2 SUCCESS), the others
    // succeed at once: never 3 failures in a row, which would auto-disable the endpoint (test settings)
    const failedOnce = new Set<string>();
    stack.receiver.respond(s.path, (request) => {
      const id = request.headers['webhook-id'];
      if (failedOnce.size < 2 && !failedOnce.has(id)) {
        failedOnce.add(id);
        return { status: 500 };
      }
      return { status: 200 };
    });
    await Promise.all(Array.from({ length: 6 }, () => raise(s.communityId)));
    // while the worker relays, claims, finishes and retries, counters and rows agree in every snapshot
    let snapshots = 0;
    await waitFor('8 finished attempts', async () => {
      const { counted, actual } = await countersAndCounts(s.endpointId);
      expect(counted).toEqual(actual);
      snapshots++;
      return actual.PENDING === 0 && actual.SUCCESS + actual.FAILED === 8;
    });
    expect(snapshots).toBeGreaterThan(0);
    await expectExactTotals(s, { SUCCESS: 6, FAILED: 2 });
  });

  it('stays exact through the test route, a resend, failures up to auto-disable, and recover', async () => {
    const s = await setUp();
    const tested = await call(stack.api.app, 'POST', `${hooks(s.communityId)}/${s.endpointId}/test`, {
      token: s.token,
    });
    expect(tested.status).toBe(200);
    await expectExactTotals(s, { SUCCESS: 1 });

    const delivered = await raise(s.communityId);
    const [first] = await waitFor('the event delivered', async () => {
      const rows = await stack.api.prisma.webhookDelivery.findMany({ where: { messageId: delivered.id } });
      return rows.length === 1 && rows[0].status === 'SUCCESS' && rows;
    });
    const resent = await call(
      stack.api.app,
      'POST',
      `${hooks(s.communityId)}/${s.endpointId}/deliveries/${first.id}/resend`,
      {
        token: s.token,
      },
    );
    expect(resent.status).toBe(202);
    await settled(s.endpointId, 3);
    await expectExactTotals(s, { SUCCESS: 3 });

    // failures until auto-disabled (3 in a row in the test settings)
    let failing = true;
    stack.receiver.respond(s.path, () => ({ status: failing ? 500 : 200 }));
    const failed = await raise(s.communityId);
    await waitFor('the endpoint auto-disabled', async () => {
      const endpoint = await stack.api.prisma.webhookEndpoint.findUnique({ where: { id: s.endpointId } });
      return endpoint?.disabledAt;
    });
    await settled(s.endpointId, 6);
    await expectExactTotals(s, { SUCCESS: 3, FAILED: 3 });

    const resumed = await call(stack.api.app, 'PATCH', `${hooks(s.communityId)}/${s.endpointId}`, {
      token: s.token,
      body: { isActive: true },
    });
    expect(resumed.status).toBe(200);
    failing = false;
    const recovered = await call(stack.api.app, 'POST', `${hooks(s.communityId)}/${s.endpointId}/recover`, {
      token: s.token,
      body: { since: new Date(Date.now() - HOUR_MS).toISOString() },
    });
    expect(recovered.status).toBe(202);
    await waitFor('the recovered attempt delivered', async () => {
      const rows = await stack.api.prisma.webhookDelivery.findMany({
        where: { messageId: failed.id, status: 'SUCCESS' },
      });
      return rows.length === 1;
    });
    await settled(s.endpointId, 7);
    await expectExactTotals(s, { SUCCESS: 4, FAILED: 3 });
  });

  it("stays exact through the sweep's closing and retries, a missing row claimed, and cancellations", async () => {
    const s = await setUp();
    const attemptOne = (messageId: string, extra: { startedAt?: Date; nextAttemptAt?: Date } = {}) =>
      stack.api.prisma.webhookDelivery.create({
        data: {
          communityId: s.communityId,
          endpointId: s.endpointId,
          messageId,
          eventType: 'tweet.created',
          attempt: 1,
          nextAttemptAt: new Date(Date.now() + HOUR_MS),
          ...extra,
        },
      });
    // a claim whose worker died two hours ago, of an event whose body is gone: the worker's sweep
    // closes it FAILED and writes its retry (one transaction), then fails the retry (no body to send)
    const abandoned = await attemptOne(newMessageId(), { startedAt: new Date(Date.now() - 2 * HOUR_MS) });
    await waitFor('the abandoned claim and its retry closed', async () => {
      const rows = await stack.api.prisma.webhookDelivery.findMany({
        where: { messageId: abandoned.messageId },
      });
      return rows.length === 2 && rows.every((r) => r.status === 'FAILED');
    });
    await expectExactTotals(s, { FAILED: 2 });

    // a job for an attempt without a row: claimed by inserting it, then sent and finished
    const processor = stack.worker.context.get(DeliveryProcessor);
    const messageId = newMessageId();
    const payload = {
      id: messageId,
      type: 'tweet.created',
      timestamp: new Date().toISOString(),
      communityId: s.communityId,
      data: { tweet: { id: randomUUID() } },
    };
    const outbox = await stack.api.prisma.outboxEvent.create({
      data: {
        communityId: s.communityId,
        messageId,
        eventType: 'tweet.created',
        payload,
        relayedAt: new Date(),
      },
    });
    const job = {
      communityId: s.communityId,
      endpointId: s.endpointId,
      messageId,
      eventType: 'tweet.created',
      attempt: 1,
      outboxId: outbox.id.toString(),
      payload: payload as never,
    };
    await processor.deliver(job);
    await expectExactTotals(s, { SUCCESS: 1, FAILED: 2 });

    // paused: a queued attempt is cancelled when its job runs, the waiting rest by cancelWaiting
    const toCancel = await attemptOne(newMessageId());
    await attemptOne(newMessageId());
    await expectExactTotals(s, { PENDING: 2, SUCCESS: 1, FAILED: 2 });
    const paused = await call(stack.api.app, 'PATCH', `${hooks(s.communityId)}/${s.endpointId}`, {
      token: s.token,
      body: { isActive: false },
    });
    expect(paused.status).toBe(200);
    await processor.deliver({ ...job, messageId: toCancel.messageId });
    expect(
      (await stack.api.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: toCancel.id } })).status,
    ).toBe('FAILED');
    await expectExactTotals(s, { PENDING: 1, SUCCESS: 1, FAILED: 3 });
    await store.cancelWaiting(s.communityId, s.endpointId, 'cancelled: endpoint disabled');
    await expectExactTotals(s, { SUCCESS: 1, FAILED: 4 });
  });

  it('drops the counters with a deleted endpoint and keeps each endpoint and community to its own', async () => {
    const a = await setUp();
    const b = await setUp();
    const aSecond = {
      ...a,
      endpointId: (
        await call(stack.api.app, 'POST', hooks(a.communityId), {
          token: a.token,
          body: { url: `${stack.receiver.url}/${unique('second')}`, events: ['tweet.created'] },
        })
      ).body.data.id as string,
    };
    await Promise.all([raise(a.communityId), raise(a.communityId), raise(b.communityId)]);
    await settled(a.endpointId, 2);
    await settled(aSecond.endpointId, 2);
    await settled(b.endpointId, 1);
    await expectExactTotals(a, { SUCCESS: 2 });
    await expectExactTotals(aSecond, { SUCCESS: 2 });
    await expectExactTotals(b, { SUCCESS: 1 });

    // another community's endpoint is not found, whatever its counters say
    const foreign = await call(stack.api.app, 'GET', `${hooks(a.communityId)}/${b.endpointId}/deliveries`, {
      token: a.token,
    });
    expect(foreign.status).toBe(404);

    const deleted = await call(stack.api.app, 'DELETE', `${hooks(a.communityId)}/${a.endpointId}`, {
      token: a.token,
    });
    expect(deleted.status).toBe(200);
    expect(await stack.api.prisma.webhookDeliveryCounter.count({ where: { endpointId: a.endpointId } })).toBe(
      0,
    );
    await expectExactTotals(aSecond, { SUCCESS: 2 });
    await expectExactTotals(b, { SUCCESS: 1 });
  });
});

/** The migration counts the attempts already there when it adds the counters. */
describe('delivery counters migration', () => {
  const MIGRATION = '20261124160000_delivery_status_counters';
  let empty: { url: string; drop: () => Promise<void> };
  let db: Client;

  beforeAll(async () => {
    empty = await createEmptyDatabase('counters_backfill');
    db = new Client({ connectionString: empty.url });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await empty?.drop();
  });

  it('backfills each (endpoint, status) from the existing rows, then the triggers keep it', async () => {
    const dir = resolve(__dirname, '../../prisma/migrations');
    const migrations = readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    const sql = (name: string) => readFileSync(resolve(dir, name, 'migration.sql'), 'utf8');
    for (const name of migrations.filter((m) => m < MIGRATION)) await db.query(sql(name));

    const communityId = randomUUID();
    const endpoints = [randomUUID(), randomUUID()];
    await db.query(`INSERT INTO communities (id, slug, name, updated_at) VALUES ($1, $2, 'c', now())`, [
      communityId,
      unique('c'),
    ]);
    for (const id of endpoints) {
      await db.query(
        `INSERT INTO webhook_endpoints (id, community_id, url, events, updated_at)
         VALUES ($1, $2, 'https://example.test/hook', ARRAY['tweet.created'], now())`,
        [id, communityId],
      );
    }
    // endpoint 0: 7 SUCCESS, 3 FAILED, 2 PENDING; endpoint 1: 5 FAILED
    await db.query(
      `INSERT INTO webhook_deliveries (id, community_id, endpoint_id, message_id, event_type, attempt, status, updated_at)
       SELECT gen_random_uuid(), $1, e, 'msg_' || g || '_' || s || '_' || e, 'tweet.created', 1, s::"DeliveryStatus", now()
         FROM (VALUES ($2::uuid, 'SUCCESS', 7), ($2, 'FAILED', 3), ($2, 'PENDING', 2), ($3::uuid, 'FAILED', 5))
              AS v(e, s, n), generate_series(1, v.n) g`,
      [communityId, endpoints[0], endpoints[1]],
    );
    await db.query(sql(MIGRATION));

    const totals = async () =>
      (
        await db.query<{ endpoint: number; status: string; value: number }>(
          `SELECT array_position($1::uuid[], endpoint_id) - 1 AS endpoint, status, sum(value)::int AS value
             FROM webhook_delivery_counters GROUP BY endpoint_id, status HAVING sum(value) <> 0
            ORDER BY 1, 2`,
          [endpoints],
        )
      ).rows;
    expect(await totals()).toEqual([
      { endpoint: 0, status: 'PENDING', value: 2 },
      { endpoint: 0, status: 'SUCCESS', value: 7 },
      { endpoint: 0, status: 'FAILED', value: 3 },
      { endpoint: 1, status: 'FAILED', value: 5 },
    ]);
    await db.query(`UPDATE webhook_deliveries SET status = 'SUCCESS' WHERE status = 'PENDING'`);
    await db.query(`DELETE FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'FAILED'`, [
      endpoints[0],
    ]);
    expect(await totals()).toEqual([
      { endpoint: 0, status: 'SUCCESS', value: 9 },
      { endpoint: 1, status: 'FAILED', value: 5 },
    ]);
  });
});
