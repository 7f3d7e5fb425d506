import type { SubscribableEvent } from '../../src/modules/events/event-catalog';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { raiseInOrder } from '../utils/synthetic-event';
import { waitFor } from '../utils/worker';
import { useDeliveryStack, watchQueuedJobs } from '../utils/delivery-stack';

const hooks = (communityId: string) => `/api/communities/${communityId}/webhooks`;
const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;
/** the API's body retention here: short enough that a backdated missed event is past it within a recover window */
const RETENTION = '1d';

/**
 * Recover's `missed` (docs/product-decisions.md#5-webhooks, "Recover"): events a paused or
 * auto-disabled endpoint was subscribed to are recorded by the relay and sent, once, in commit order,
 * when recover asks for them after the endpoint is resumed.
 */
describe('webhook recover: missed events', () => {
  const stack = useDeliveryStack({ apiEnv: { WEBHOOK_MESSAGE_RETENTION: RETENTION } });

  /** A PRO community with an OWNER, and an endpoint created through the API on its own receiver path. */
  async function setUp(events: string[] = ['tweet.created']) {
    const member = await memberWithToken(stack.api.app, { plan: 'PRO' });
    const endpoint = await addEndpoint(member, events);
    return { ...member, endpointId: endpoint.id, path: endpoint.path };
  }

  async function addEndpoint(member: { community: { id: string }; token: string }, events: string[]) {
    const path = `/${unique('hook')}`;
    const created = await call(stack.api.app, 'POST', hooks(member.community.id), {
      token: member.token,
      body: { url: stack.receiver.url + path, events },
    });
    expect(created.status).toBe(201);
    return { id: created.body.data.id as string, path };
  }

  async function setActive(
    s: { community: { id: string }; token: string },
    endpointId: string,
    isActive: boolean,
  ) {
    const res = await call(stack.api.app, 'PATCH', `${hooks(s.community.id)}/${endpointId}`, {
      token: s.token,
      body: { isActive },
    });
    expect(res.status).toBe(200);
  }

  /** `count` events, each in a transaction of its own: their commit order is the order returned. */
  const raise = (communityId: string, count: number, type?: SubscribableEvent) =>
    raiseInOrder(stack.api, communityId, count, type);

  function missedOf(endpointId: string) {
    return stack.api.prisma.webhookMissedEvent.findMany({
      where: { endpointId },
      orderBy: { outboxId: 'asc' },
    });
  }

  /** Waits until the relay recorded `count` missed events for the endpoint. */
  function missedRecorded(endpointId: string, count: number) {
    return waitFor(`${count} missed events of ${endpointId}`, async () => {
      const rows = await missedOf(endpointId);
      return rows.length === count && rows;
    });
  }

  async function attemptsOf(endpointId: string, messageIds: string[]) {
    return stack.api.prisma.webhookDelivery.findMany({
      where: { endpointId, messageId: { in: messageIds } },
      orderBy: [{ messageId: 'asc' }, { attempt: 'asc' }],
    });
  }

  /** Waits until each event has exactly one attempt per `perEvent` and all are finished. */
  function settled(endpointId: string, messageIds: string[], perEvent = 1) {
    return waitFor(`${messageIds.length} events settled`, async () => {
      const rows = await attemptsOf(endpointId, messageIds);
      return (
        rows.length === messageIds.length * perEvent && rows.every((r) => r.status !== 'PENDING') && rows
      );
    });
  }

  const recoverUrl = (s: { community: { id: string }; endpointId: string }) =>
    `${hooks(s.community.id)}/${s.endpointId}/recover`;

  /** Another OWNER of the community: a rate-limit bucket of their own. */
  async function anotherOwner(communityId: string) {
    return (await memberWithToken(stack.api.app, { communityId, role: 'OWNER' })).token;
  }

  it('pause, 10 events, resume: recover ["missed"] queues the 10 in commit order once; a second call queues nothing', async () => {
    const s = await setUp();
    // a paused endpoint of the same community subscribed to something else misses nothing
    const other = await addEndpoint(s, ['comment.created']);
    await setActive(s, other.id, false);
    const since = new Date(Date.now() - HOUR_MS).toISOString();
    await setActive(s, s.endpointId, false);
    const events = await raise(s.community.id, 10);
    const missed = await missedRecorded(s.endpointId, 10);
    expect(missed.map((m) => m.raisedAt <= new Date())).toEqual(Array(10).fill(true));
    expect(await missedOf(other.id)).toEqual([]);
    // nothing was sent while paused
    expect(await attemptsOf(s.endpointId, events)).toEqual([]);
    await setActive(s, s.endpointId, true);

    // the jobs as the API adds them, and whether a worker's connection can see each row by then
    const { queued, stop } = await watchQueuedJobs(stack.api);
    try {
      // with an Idempotency-Key the rows commit with the answer: the jobs must follow the commit
      const res = await call(stack.api.app, 'POST', recoverUrl(s), {
        token: s.token,
        headers: { 'idempotency-key': unique('key') },
        body: { since, include: ['missed'] },
      });
      expect(res.status).toBe(202);
      expect(res.body.data).toEqual({ queued: 10, remaining: 0, expired: 0 });
      await waitFor('the 10 jobs to be queued', () => queued.length === 10);
      expect(queued.map((q) => [q.job.messageId, q.job.attempt, q.visible])).toEqual(
        events.map((id) => [id, 1, true]),
      );
    } finally {
      await stop();
    }

    const rows = await settled(s.endpointId, events);
    expect(rows.every((r) => r.attempt === 1 && r.status === 'SUCCESS')).toBe(true);
    await waitFor('the 10 requests', () => stack.receiver.at(s.path).length === 10);
    expect(
      stack.receiver
        .at(s.path)
        .map((r) => r.headers['webhook-id'])
        .sort(),
    ).toEqual([...events].sort());
    expect(await missedOf(s.endpointId)).toEqual([]);

    const again = await call(stack.api.app, 'POST', recoverUrl(s), {
      token: s.token,
      body: { since, include: ['missed'] },
    });
    expect(again.status).toBe(202);
    expect(again.body.data).toEqual({ queued: 0, remaining: 0, expired: 0 });
    expect(await attemptsOf(s.endpointId, events)).toHaveLength(10);
    // with failed too: everything was delivered, nothing to do
    const both = await call(stack.api.app, 'POST', recoverUrl(s), {
      token: s.token,
      body: { since, include: ['failed', 'missed'] },
    });
    expect(both.body.data).toEqual({ queued: 0, remaining: 0, expired: 0 });
    expect(stack.receiver.at(s.path)).toHaveLength(10);
  });

  it('without include it recovers failed attempts only, as before, and leaves missed events for ["missed"]', async () => {
    const s = await setUp();
    const since = new Date(Date.now() - HOUR_MS).toISOString();
    await setActive(s, s.endpointId, false);
    const events = await raise(s.community.id, 2);
    await missedRecorded(s.endpointId, 2);
    await setActive(s, s.endpointId, true);

    const byDefault = await call(stack.api.app, 'POST', recoverUrl(s), { token: s.token, body: { since } });
    expect(byDefault.status).toBe(202);
    expect(byDefault.body.data).toEqual({ queued: 0, remaining: 0, expired: 0 });
    const failedOnly = await call(stack.api.app, 'POST', recoverUrl(s), {
      token: s.token,
      body: { since, include: ['failed'] },
    });
    expect(failedOnly.body.data).toEqual({ queued: 0, remaining: 0, expired: 0 });
    expect(await missedOf(s.endpointId)).toHaveLength(2);
    expect(await attemptsOf(s.endpointId, events)).toEqual([]);

    const missed = await call(stack.api.app, 'POST', recoverUrl(s), {
      token: s.token,
      body: { since, include: ['missed'] },
    });
    expect(missed.body.data).toEqual({ queued: 2, remaining: 0, expired: 0 });
    await settled(s.endpointId, events);
  });

  it('an auto-disabled endpoint: ["failed", "missed"] queues its failed event and what it missed, never its own disabled event', async () => {
    const s = await setUp(['tweet.created', 'webhook.endpoint.disabled']);
    // a paused observer of the same community misses the disabled event like any other event
    const observer = await addEndpoint(s, ['webhook.endpoint.disabled']);
    await setActive(s, observer.id, false);
    let failing = true;
    stack.receiver.respond(s.path, () => ({ status: failing ? 500 : 200 }));
    const since = new Date(Date.now() - HOUR_MS).toISOString();

    const [failedEvent] = await raise(s.community.id, 1);
    await waitFor('the endpoint to be auto-disabled', async () => {
      const endpoint = await stack.api.prisma.webhookEndpoint.findUnique({ where: { id: s.endpointId } });
      return endpoint?.disabledAt;
    });
    await settled(s.endpointId, [failedEvent], 3);
    const observerMissed = await missedRecorded(observer.id, 1);
    const later = await raise(s.community.id, 2);
    await missedRecorded(s.endpointId, 2);
    // its own webhook.endpoint.disabled is not among what it missed
    const outbox = await stack.api.prisma.outboxEvent.findMany({
      where: { id: { in: (await missedOf(s.endpointId)).map((m) => m.outboxId) } },
      orderBy: { id: 'asc' },
    });
    expect(outbox.map((o) => o.messageId)).toEqual(later);
    const disabledEvent = await stack.api.prisma.outboxEvent.findUniqueOrThrow({
      where: { id: observerMissed[0].outboxId },
    });
    expect(disabledEvent).toMatchObject({ eventType: 'webhook.endpoint.disabled' });

    failing = false;
    await setActive(s, s.endpointId, true);
    const res = await call(stack.api.app, 'POST', recoverUrl(s), {
      token: s.token,
      body: { since, include: ['failed', 'missed'] },
    });
    expect(res.status).toBe(202);
    expect(res.body.data).toEqual({ queued: 3, remaining: 0, expired: 0 });
    await settled(s.endpointId, [failedEvent], 4);
    await settled(s.endpointId, later);
    expect(await attemptsOf(s.endpointId, [disabledEvent.messageId])).toEqual([]);

    // the observer, resumed, recovers the operational event like any other
    await setActive(s, observer.id, true);
    const forObserver = await call(stack.api.app, 'POST', `${hooks(s.community.id)}/${observer.id}/recover`, {
      token: s.token,
      body: { since, include: ['missed'] },
    });
    expect(forObserver.body.data).toEqual({ queued: 1, remaining: 0, expired: 0 });
    await settled(observer.id, [disabledEvent.messageId]);
  });

  it('counts missed events past WEBHOOK_MESSAGE_RETENTION as expired and never sends them', async () => {
    const s = await setUp();
    await setActive(s, s.endpointId, false);
    const events = await raise(s.community.id, 3);
    const missed = await missedRecorded(s.endpointId, 3);
    // the first two were raised two days ago: past this API's one-day retention
    await stack.api.prisma.webhookMissedEvent.updateMany({
      where: { endpointId: s.endpointId, outboxId: { in: missed.slice(0, 2).map((m) => m.outboxId) } },
      data: { raisedAt: new Date(Date.now() - 2 * DAY_MS) },
    });
    await setActive(s, s.endpointId, true);

    const since = new Date(Date.now() - 3 * DAY_MS).toISOString();
    const res = await call(stack.api.app, 'POST', recoverUrl(s), {
      token: s.token,
      body: { since, include: ['missed'] },
    });
    expect(res.status).toBe(202);
    expect(res.body.data).toEqual({ queued: 1, remaining: 0, expired: 2 });
    await settled(s.endpointId, events.slice(2));
    // the same call again: nothing new, the same two still past retention
    const again = await call(stack.api.app, 'POST', recoverUrl(s), {
      token: s.token,
      body: { since, include: ['missed'] },
    });
    expect(again.body.data).toEqual({ queued: 0, remaining: 0, expired: 2 });
    // a window that ends before them sees neither
    const before = await call(stack.api.app, 'POST', recoverUrl(s), {
      token: s.token,
      body: { since, until: new Date(Date.now() - 2 * DAY_MS - HOUR_MS).toISOString(), include: ['missed'] },
    });
    expect(before.body.data).toEqual({ queued: 0, remaining: 0, expired: 0 });
    expect(await attemptsOf(s.endpointId, events.slice(0, 2))).toEqual([]);
    expect(stack.receiver.at(s.path).map((r) => r.headers['webhook-id'])).toEqual(events.slice(2));
  });

  it("a second community can neither recover another's missed events nor see them in its own answer", async () => {
    const a = await setUp();
    const b = await setUp();
    const since = new Date(Date.now() - HOUR_MS).toISOString();
    await setActive(a, a.endpointId, false);
    await setActive(b, b.endpointId, false);
    const ofA = await raise(a.community.id, 2);
    await missedRecorded(a.endpointId, 2);
    await setActive(a, a.endpointId, true);
    await setActive(b, b.endpointId, true);

    // B's token on A's endpoint, under B's community and under A's
    const underB = await call(stack.api.app, 'POST', `${hooks(b.community.id)}/${a.endpointId}/recover`, {
      token: b.token,
      body: { since, include: ['missed'] },
    });
    expect(underB.status).toBe(404);
    const underA = await call(stack.api.app, 'POST', recoverUrl(a), {
      token: b.token,
      body: { since, include: ['missed'] },
    });
    expect(underA.status).toBe(403);
    // B's own endpoint, subscribed to the same type, missed none of A's events
    const own = await call(stack.api.app, 'POST', recoverUrl(b), {
      token: b.token,
      body: { since, include: ['missed'] },
    });
    expect(own.body.data).toEqual({ queued: 0, remaining: 0, expired: 0 });
    expect(await missedOf(a.endpointId)).toHaveLength(2);
    expect(await attemptsOf(a.endpointId, ofA)).toEqual([]);

    // A recovers its own (and leaves nothing pending behind)
    const mine = await call(stack.api.app, 'POST', recoverUrl(a), {
      token: a.token,
      body: { since, include: ['missed'] },
    });
    expect(mine.body.data).toEqual({ queued: 2, remaining: 0, expired: 0 });
    await settled(a.endpointId, ofA);
  });

  it('refuses a bad include with 400 VALIDATION_ERROR', async () => {
    const s = await setUp();
    const since = new Date(Date.now() - HOUR_MS).toISOString();
    for (const include of [[], ['lost'], ['missed', 'missed'], null, 'missed', [1]]) {
      const token = await anotherOwner(s.community.id);
      const res = await call(stack.api.app, 'POST', recoverUrl(s), { token, body: { since, include } });
      expect({ include, status: res.status, code: res.body.code }).toEqual({
        include,
        status: 400,
        code: 'VALIDATION_ERROR',
      });
    }
  });
});
