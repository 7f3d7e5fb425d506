import { Client } from 'pg';
import type { SubscribableEvent } from '../../src/modules/events/event-catalog';
import { DeliveryQueue } from '../../src/modules/webhooks/core/delivery-queue.service';
import { OutboxService } from '../../src/modules/events/outbox.service';
import { RequestedAttemptsStore } from '../../src/modules/webhooks/requested-attempts.store';
import { DeliveryProcessor } from '../../src/modules/webhooks/worker/delivery.processor';
import { SUPERSEDED_BY_RESEND } from '../../src/modules/webhooks/worker/delivery-attempts.store';
import { createTestApp, TestApp } from '../utils/app';
import { memberWithToken, unique, announceCommunityChange } from '../utils/factories';
import { call } from '../utils/http';
import { Receiver, startReceiver } from '../utils/webhook-receiver';
import { DELIVERY_TEST_ENV, startTestWorker, TestWorker, waitFor } from '../utils/worker';
import { syntheticData } from '../utils/synthetic-event';

const hooks = (communityId: string) => `/api/communities/${communityId}/webhooks`;
const HOUR_MS = 3600_000;
const RECOVER_MAX = 3;

/** Resend and recover (docs/product-decisions.md#5-webhooks): through the API, delivered by a real worker. */
describe('webhook resend and recover', () => {
  let api: TestApp;
  let worker: TestWorker;
  let receiver: Receiver;

  beforeAll(async () => {
    // recover's cap per call, small enough to reach with a few events
    api = await createTestApp({ ...DELIVERY_TEST_ENV, WEBHOOK_RECOVER_MAX: String(RECOVER_MAX) });
    worker = await startTestWorker();
    receiver = await startReceiver();
  });

  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await receiver?.close();
  });

  /** A PRO community with an OWNER, and an endpoint created through the API on its own receiver path. */
  async function setUp(events: string[] = ['tweet.created']) {
    const member = await memberWithToken(api.app, { plan: 'PRO' });
    const path = `/${unique('hook')}`;
    const created = await call(api.app, 'POST', hooks(member.community.id), {
      token: member.token,
      body: { url: receiver.url + path, events },
    });
    expect(created.status).toBe(201);
    return { ...member, endpointId: created.body.data.id as string, path };
  }

  async function raise(communityId: string, type: SubscribableEvent = 'tweet.created') {
    return api.prisma.$transaction((tx) =>
      api.app.get(OutboxService).record(tx, communityId, type, syntheticData({ tweet: { id: unique('t') } })),
    );
  }

  function attemptsOf(endpointId: string, messageId: string) {
    return api.prisma.webhookDelivery.findMany({
      where: { endpointId, messageId },
      orderBy: { attempt: 'asc' },
    });
  }

  /** Waits until the event's attempts are all finished and there are `count` of them. */
  function settled(endpointId: string, messageId: string, count: number) {
    return waitFor(`${count} finished attempts of ${messageId}`, async () => {
      const rows = await attemptsOf(endpointId, messageId);
      return rows.length === count && rows.every((r) => r.status !== 'PENDING') && rows;
    });
  }

  /** Test settings auto-disable after 3 consecutive failures; its pending retries are then cancelled. */
  function autoDisabled(endpointId: string) {
    return waitFor('the endpoint to be auto-disabled', async () => {
      const endpoint = await api.prisma.webhookEndpoint.findUnique({ where: { id: endpointId } });
      return endpoint?.disabledAt;
    });
  }

  /** Another OWNER of the community: a rate-limit bucket of their own. */
  async function anotherOwner(communityId: string) {
    return (await memberWithToken(api.app, { communityId, role: 'OWNER' })).token;
  }

  /** A delivered event: one SUCCESS attempt. */
  async function delivered(s: { community: { id: string }; endpointId: string }) {
    const event = await raise(s.community.id);
    const [row] = await settled(s.endpointId, event.id, 1);
    return { event, deliveryId: row.id };
  }

  const resendUrl = (s: { community: { id: string }; endpointId: string }, deliveryId: string) =>
    `${hooks(s.community.id)}/${s.endpointId}/deliveries/${deliveryId}/resend`;
  const recoverUrl = (s: { community: { id: string }; endpointId: string }) =>
    `${hooks(s.community.id)}/${s.endpointId}/recover`;

  describe('resend', () => {
    it('sends the event again with the same webhook-id as the next attempt, answered 202 with the PENDING attempt', async () => {
      const s = await setUp();
      const { event, deliveryId } = await delivered(s);

      const res = await call(api.app, 'POST', resendUrl(s, deliveryId), { token: s.token });
      expect(res.status).toBe(202);
      expect(res.body.data).toMatchObject({
        endpointId: s.endpointId,
        messageId: event.id,
        eventType: 'tweet.created',
        attempt: 2,
        status: 'PENDING',
        responseStatus: null,
      });
      expect(res.body.data.id).not.toBe(deliveryId);

      const rows = await settled(s.endpointId, event.id, 2);
      expect(rows.map((r) => [r.attempt, r.status])).toEqual([
        [1, 'SUCCESS'],
        [2, 'SUCCESS'],
      ]);
      const requests = receiver.at(s.path);
      expect(requests.map((r) => r.headers['webhook-id'])).toEqual([event.id, event.id]);
      expect(JSON.parse(requests[1].body)).toEqual(JSON.parse(requests[0].body));
      // the log lists it like any other attempt
      const log = await call(api.app, 'GET', `${hooks(s.community.id)}/${s.endpointId}/deliveries`, {
        token: s.token,
      });
      expect(log.body.data.items[0]).toMatchObject({ id: res.body.data.id, attempt: 2, status: 'SUCCESS' });
    });

    it('sends a resend asked for while an attempt of the message is in flight only after that attempt ended', async () => {
      const s = await setUp();
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let holding = true;
      receiver.respond(s.path, async () => {
        if (holding) await held;
        return { status: 200 };
      });
      const event = await raise(s.community.id);
      await waitFor('the first attempt at the receiver', () => receiver.at(s.path).length === 1);
      const [first] = await attemptsOf(s.endpointId, event.id);
      expect(first).toMatchObject({ status: 'PENDING', startedAt: expect.any(Date) });

      const res = await call(api.app, 'POST', resendUrl(s, first.id), { token: s.token });
      expect(res.status).toBe(202);
      // the resend's job has run and found the first attempt in flight: it waits, unsent and unclaimed
      await waitFor('the resend to be asked for', async () => {
        const [, resent] = await attemptsOf(s.endpointId, event.id);
        return (
          resent &&
          (await worker.context.get(DeliveryQueue).queue.getJobState(`${event.id}.${s.endpointId}.2`)) ===
            'delayed'
        );
      });
      const [, waiting] = await attemptsOf(s.endpointId, event.id);
      expect(waiting).toMatchObject({ attempt: 2, status: 'PENDING', startedAt: null });
      expect(receiver.at(s.path)).toHaveLength(1);

      holding = false;
      const releasedAt = Date.now();
      release();
      const rows = await settled(s.endpointId, event.id, 2);
      expect(rows.map((r) => [r.attempt, r.status])).toEqual([
        [1, 'SUCCESS'],
        [2, 'SUCCESS'],
      ]);
      const requests = receiver.at(s.path);
      expect(requests).toHaveLength(2);
      expect(requests[1].receivedAt).toBeGreaterThanOrEqual(releasedAt);
    });

    it('closes the retry still waiting once the resend succeeded, saying why, so it never sends the message again', async () => {
      const s = await setUp();
      const { event, deliveryId } = await delivered(s);
      // attempt 2 as the retry schedule leaves it: waiting, due in an hour
      const waiting = await api.prisma.webhookDelivery.create({
        data: {
          communityId: s.community.id,
          endpointId: s.endpointId,
          messageId: event.id,
          eventType: 'tweet.created',
          attempt: 2,
          nextAttemptAt: new Date(Date.now() + HOUR_MS),
        },
      });

      const res = await call(api.app, 'POST', resendUrl(s, deliveryId), { token: s.token });
      expect(res.body.data.attempt).toBe(3);
      const rows = await settled(s.endpointId, event.id, 3);
      expect(rows.map((r) => [r.attempt, r.status, r.error, r.nextAttemptAt])).toEqual([
        [1, 'SUCCESS', null, null],
        [2, 'FAILED', SUPERSEDED_BY_RESEND, null],
        [3, 'SUCCESS', null, null],
      ]);
      // its job, when it runs, finds nothing to send
      await worker.context.get(DeliveryProcessor).deliver({
        communityId: s.community.id,
        endpointId: s.endpointId,
        messageId: event.id,
        eventType: 'tweet.created',
        attempt: waiting.attempt,
        outboxId: '0',
        payload: JSON.parse(receiver.at(s.path)[0].body),
      });
      expect(receiver.at(s.path).map((r) => r.headers['webhook-id'])).toEqual([event.id, event.id]);
    });

    it('with an Idempotency-Key, queues the attempt only once its row is committed (a worker must see it)', async () => {
      const s = await setUp();
      const { deliveryId } = await delivered(s);
      const queue = api.app.get(DeliveryQueue);
      const outside = new Client({ connectionString: process.env.DATABASE_URL });
      await outside.connect();
      const seenWhenQueued: boolean[] = [];
      const addAll = queue.addAll.bind(queue);
      const spy = jest.spyOn(queue, 'addAll').mockImplementation(async (jobs, delayMs) => {
        // another connection, as a worker's: the request's own would see its uncommitted rows
        for (const job of jobs) {
          const { rowCount } = await outside.query(
            'SELECT 1 FROM webhook_deliveries WHERE endpoint_id = $1 AND message_id = $2 AND attempt = $3',
            [job.endpointId, job.messageId, job.attempt],
          );
          seenWhenQueued.push(rowCount === 1);
        }
        return addAll(jobs, delayMs);
      });
      try {
        const res = await call(api.app, 'POST', resendUrl(s, deliveryId), {
          token: s.token,
          headers: { 'idempotency-key': unique('key') },
        });
        expect(res.status).toBe(202);
        await waitFor('the attempt to be queued', () => seenWhenQueued.length > 0);
        expect(seenWhenQueued).toEqual([true]);
      } finally {
        spy.mockRestore();
        await outside.end();
      }
    });

    it('numbers the new attempt one above the highest so far, whichever attempt was named', async () => {
      const s = await setUp();
      let failing = true;
      receiver.respond(s.path, () => ({ status: failing ? 500 : 200 }));
      const event = await raise(s.community.id);
      // 3 attempts (the test schedule), all FAILED; they also auto-disable the endpoint (test settings)
      await autoDisabled(s.endpointId);
      const rows = await settled(s.endpointId, event.id, 3);
      expect(rows.map((r) => r.status)).toEqual(['FAILED', 'FAILED', 'FAILED']);

      // disabled → 409 telling to resume first
      const refused = await call(api.app, 'POST', resendUrl(s, rows[0].id), { token: s.token });
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ success: false, code: 'CONFLICT' });
      expect(refused.body.error).toMatch(/disabled.*resume it first/);

      const resumed = await call(api.app, 'PATCH', `${hooks(s.community.id)}/${s.endpointId}`, {
        token: s.token,
        body: { isActive: true },
      });
      expect(resumed.status).toBe(200);
      failing = false;
      const res = await call(api.app, 'POST', resendUrl(s, rows[0].id), { token: s.token });
      expect(res.status).toBe(202);
      expect(res.body.data).toMatchObject({ messageId: event.id, attempt: 4, status: 'PENDING' });
      const after = await settled(s.endpointId, event.id, 4);
      expect(after[3]).toMatchObject({ attempt: 4, status: 'SUCCESS', responseStatus: 200 });
      expect(receiver.at(s.path).map((r) => r.headers['webhook-id'])).toEqual(Array(4).fill(event.id));
    });

    it('answers 409 on a paused endpoint, and writes nothing', async () => {
      const s = await setUp();
      const { event, deliveryId } = await delivered(s);
      await call(api.app, 'PATCH', `${hooks(s.community.id)}/${s.endpointId}`, {
        token: s.token,
        body: { isActive: false },
      });
      const res = await call(api.app, 'POST', resendUrl(s, deliveryId), { token: s.token });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: 'CONFLICT' });
      expect(res.body.error).toMatch(/paused.*resume it first/);
      expect(await attemptsOf(s.endpointId, event.id)).toHaveLength(1);
    });

    it('answers 409 for a test delivery (sent again through the test route)', async () => {
      const s = await setUp();
      const tested = await call(api.app, 'POST', `${hooks(s.community.id)}/${s.endpointId}/test`, {
        token: s.token,
      });
      expect(tested.status).toBe(200);
      const res = await call(api.app, 'POST', resendUrl(s, tested.body.data.id), { token: s.token });
      expect(res.status).toBe(409);
      expect(res.body.error).toMatch(/test route/);
    });

    it("answers 404 for another community's endpoint or delivery, and 400 for a malformed id", async () => {
      const a = await setUp();
      const b = await setUp();
      const ofA = await delivered(a);
      const ofB = await delivered(b);
      // B's delivery under A's endpoint, B's endpoint under A's community, A's delivery under B's endpoint id
      for (const url of [
        resendUrl(a, ofB.deliveryId),
        `${hooks(a.community.id)}/${b.endpointId}/deliveries/${ofB.deliveryId}/resend`,
        `${hooks(a.community.id)}/${b.endpointId}/deliveries/${ofA.deliveryId}/resend`,
        resendUrl(a, '00000000-0000-4000-8000-000000000000'),
      ]) {
        const res = await call(api.app, 'POST', url, { token: a.token });
        expect({ url, status: res.status, code: res.body.code }).toEqual({
          url,
          status: 404,
          code: 'NOT_FOUND',
        });
      }
      expect((await call(api.app, 'POST', resendUrl(a, 'nope'), { token: a.token })).status).toBe(400);
      // nothing was written for B
      expect(await attemptsOf(b.endpointId, ofB.event.id)).toHaveLength(1);
      // a foreign recover is a 404 too
      const foreign = await call(api.app, 'POST', `${hooks(a.community.id)}/${b.endpointId}/recover`, {
        token: a.token,
        body: { since: new Date(Date.now() - HOUR_MS).toISOString() },
      });
      expect(foreign.status).toBe(404);
    });
  });

  describe('recover', () => {
    it('re-sends once every event whose latest attempt FAILED in the window; a second call queues nothing', async () => {
      const s = await setUp();
      let failing = true;
      receiver.respond(s.path, () => ({ status: failing ? 503 : 200 }));
      // two events, one after the other, each failing all 3 attempts (the test schedule) until the
      // endpoint is auto-disabled (test settings; nothing is left pending), then re-enabled
      const failed = [];
      for (let i = 0; i < 2; i++) {
        const event = await raise(s.community.id);
        await autoDisabled(s.endpointId);
        await settled(s.endpointId, event.id, 3);
        await call(api.app, 'PATCH', `${hooks(s.community.id)}/${s.endpointId}`, {
          token: s.token,
          body: { isActive: true },
        });
        failed.push(event);
      }
      const [first, second] = failed;
      const before = { [first.id]: 3, [second.id]: 3 };
      // and one delivered event, which recover must leave alone
      failing = false;
      const ok = await raise(s.community.id);
      await settled(s.endpointId, ok.id, 1);

      const since = new Date(Date.now() - HOUR_MS).toISOString();
      const res = await call(api.app, 'POST', recoverUrl(s), { token: s.token, body: { since } });
      expect(res.status).toBe(202);
      expect(res.body.data).toEqual({ queued: 2, remaining: 0, expired: 0 });
      const again = await call(api.app, 'POST', recoverUrl(s), { token: s.token, body: { since } });
      expect(again.body.data).toEqual({ queued: 0, remaining: 0, expired: 0 });

      for (const event of [first, second]) {
        const rows = await settled(s.endpointId, event.id, before[event.id] + 1);
        expect(rows.at(-1)).toMatchObject({ attempt: before[event.id] + 1, status: 'SUCCESS' });
      }
      expect(await attemptsOf(s.endpointId, ok.id)).toHaveLength(1);
      // now their latest attempts succeeded: nothing left to recover
      const third = await call(api.app, 'POST', recoverUrl(s), { token: s.token, body: { since } });
      expect(third.body.data).toEqual({ queued: 0, remaining: 0, expired: 0 });
    });

    it('only looks at attempts created in [since, until)', async () => {
      const s = await setUp();
      receiver.respond(s.path, () => ({ status: 500 }));
      const event = await raise(s.community.id);
      await autoDisabled(s.endpointId);
      await settled(s.endpointId, event.id, 3);
      await call(api.app, 'PATCH', `${hooks(s.community.id)}/${s.endpointId}`, {
        token: s.token,
        body: { isActive: true },
      });
      const res = await call(api.app, 'POST', recoverUrl(s), {
        token: s.token,
        body: {
          since: new Date(Date.now() - 3 * HOUR_MS).toISOString(),
          until: new Date(Date.now() - HOUR_MS).toISOString(),
        },
      });
      expect(res.status).toBe(202);
      expect(res.body.data).toEqual({ queued: 0, remaining: 0, expired: 0 });
      expect(await attemptsOf(s.endpointId, event.id)).toHaveLength(3);
    });

    /** `count` events of the endpoint whose only attempt FAILED now (relayed already: the relay leaves them). */
    async function failedEvents(s: { community: { id: string }; endpointId: string }, count: number) {
      const messageIds: string[] = [];
      // a millisecond apart, so "oldest first" has one answer
      const start = Date.now() - 60_000;
      for (let i = 0; i < count; i++) {
        const messageId = unique('msg_failed');
        const body = {
          id: messageId,
          type: 'tweet.created',
          timestamp: new Date().toISOString(),
          communityId: s.community.id,
          data: syntheticData({ tweet: { id: unique('t') } }),
        };
        await api.prisma.outboxEvent.create({
          data: {
            communityId: s.community.id,
            messageId,
            eventType: 'tweet.created',
            payload: body,
            relayedAt: new Date(),
          },
        });
        await api.prisma.webhookDelivery.create({
          data: {
            communityId: s.community.id,
            endpointId: s.endpointId,
            messageId,
            eventType: 'tweet.created',
            attempt: 1,
            status: 'FAILED',
            error: 'target answered HTTP 500',
            createdAt: new Date(start + i),
          },
        });
        messageIds.push(messageId);
      }
      return messageIds;
    }

    it('queues at most WEBHOOK_RECOVER_MAX per call and says how many remain; the next call queues the rest, nothing twice', async () => {
      const s = await setUp();
      const count = RECOVER_MAX + 2;
      const messageIds = await failedEvents(s, count);
      const since = new Date(Date.now() - HOUR_MS).toISOString();

      const first = await call(api.app, 'POST', recoverUrl(s), { token: s.token, body: { since } });
      expect(first.status).toBe(202);
      expect(first.body.data).toEqual({ queued: RECOVER_MAX, remaining: count - RECOVER_MAX, expired: 0 });
      const second = await call(api.app, 'POST', recoverUrl(s), { token: s.token, body: { since } });
      expect(second.body.data).toEqual({ queued: count - RECOVER_MAX, remaining: 0, expired: 0 });
      const third = await call(api.app, 'POST', recoverUrl(s), { token: s.token, body: { since } });
      expect(third.body.data).toEqual({ queued: 0, remaining: 0, expired: 0 });

      // each event got exactly one new attempt, and the receiver each event once
      for (const messageId of messageIds) {
        const rows = await settled(s.endpointId, messageId, 2);
        expect(rows.map((r) => [r.attempt, r.status])).toEqual([
          [1, 'FAILED'],
          [2, 'SUCCESS'],
        ]);
      }
      const received = receiver.at(s.path).map((r) => r.headers['webhook-id']);
      expect(received.sort()).toEqual([...messageIds].sort());
    });

    it('counts missed events against the same WEBHOOK_RECOVER_MAX, after the failed ones, in commit order', async () => {
      const s = await setUp();
      const failed = await failedEvents(s, 2);
      await call(api.app, 'PATCH', `${hooks(s.community.id)}/${s.endpointId}`, {
        token: s.token,
        body: { isActive: false },
      });
      const missed: string[] = [];
      for (let i = 0; i < 3; i++) missed.push((await raise(s.community.id)).id);
      await waitFor('3 missed events', async () => {
        const count = await api.prisma.webhookMissedEvent.count({ where: { endpointId: s.endpointId } });
        return count === 3;
      });
      await call(api.app, 'PATCH', `${hooks(s.community.id)}/${s.endpointId}`, {
        token: s.token,
        body: { isActive: true },
      });
      const since = new Date(Date.now() - HOUR_MS).toISOString();
      const body = { since, include: ['failed', 'missed'] };
      const first = await call(api.app, 'POST', recoverUrl(s), { token: s.token, body });
      expect(first.status).toBe(202);
      expect(first.body.data).toEqual({ queued: RECOVER_MAX, remaining: 2, expired: 0 });
      // the failed two, then the first missed one
      for (const messageId of failed) await settled(s.endpointId, messageId, 2);
      await settled(s.endpointId, missed[0], 1);
      expect(await attemptsOf(s.endpointId, missed[1])).toEqual([]);
      const second = await call(api.app, 'POST', recoverUrl(s), { token: s.token, body });
      expect(second.body.data).toEqual({ queued: 2, remaining: 0, expired: 0 });
      for (const messageId of missed.slice(1)) await settled(s.endpointId, messageId, 1);
      const third = await call(api.app, 'POST', recoverUrl(s), { token: s.token, body });
      expect(third.body.data).toEqual({ queued: 0, remaining: 0, expired: 0 });
    });

    it('writes recover in pages of bounded statements, oldest attempt first, each page after the last', async () => {
      const s = await setUp();
      // paused, so nothing sends what the pages write (the store writes whatever the service asks)
      await call(api.app, 'PATCH', `${hooks(s.community.id)}/${s.endpointId}`, {
        token: s.token,
        body: { isActive: false },
      });
      const messageIds = await failedEvents(s, 5);
      const store = api.app.get(RequestedAttemptsStore);
      const window = { since: new Date(Date.now() - HOUR_MS), until: new Date(Date.now() + HOUR_MS) };
      expect(await store.countRecoverable(s.community.id, s.endpointId, window)).toBe(5);
      const pages: string[][] = [];
      let after: string | null = null;
      for (;;) {
        const page = await store.insertRecoverAttempts(s.community.id, s.endpointId, window, {
          limit: 2,
          after,
        });
        pages.push(page.attempts.map((a) => a.messageId));
        expect(page.examined).toBeLessThanOrEqual(2);
        if (page.examined < 2) break;
        after = page.last;
      }
      expect(pages).toEqual([messageIds.slice(0, 2), messageIds.slice(2, 4), messageIds.slice(4)]);
      expect(await store.countRecoverable(s.community.id, s.endpointId, window)).toBe(0);
      // a page from the start again finds every event already queued
      const again = await store.insertRecoverAttempts(s.community.id, s.endpointId, window, {
        limit: 10,
        after: null,
      });
      expect(again).toEqual({ attempts: [], examined: 0, last: null });
      for (const messageId of messageIds) expect(await attemptsOf(s.endpointId, messageId)).toHaveLength(2);
    });

    it('refuses a bad window with 400 VALIDATION_ERROR and a paused endpoint with 409', async () => {
      const s = await setUp();
      const now = Date.now();
      for (const body of [
        {},
        { since: 'yesterday' },
        { since: new Date(now).toISOString(), until: new Date(now - HOUR_MS).toISOString() },
        { since: new Date(now).toISOString(), until: new Date(now).toISOString() },
        { since: new Date(now - 15 * 24 * HOUR_MS).toISOString() },
        { since: new Date(now - HOUR_MS).toISOString(), extra: 1 },
      ]) {
        // each from a caller of its own: refused bodies still spend rate-limit tokens
        const token = await anotherOwner(s.community.id);
        const res = await call(api.app, 'POST', recoverUrl(s), { token, body });
        expect({ body, status: res.status, code: res.body.code }).toEqual({
          body,
          status: 400,
          code: 'VALIDATION_ERROR',
        });
      }
      // exactly 14 days is allowed
      const fourteen = await call(api.app, 'POST', recoverUrl(s), {
        token: s.token,
        body: { since: new Date(now - 14 * 24 * HOUR_MS).toISOString(), until: new Date(now).toISOString() },
      });
      expect(fourteen.status).toBe(202);

      await call(api.app, 'PATCH', `${hooks(s.community.id)}/${s.endpointId}`, {
        token: s.token,
        body: { isActive: false },
      });
      const paused = await call(api.app, 'POST', recoverUrl(s), {
        token: s.token,
        body: { since: new Date(now - HOUR_MS).toISOString() },
      });
      expect(paused.status).toBe(409);
      expect(paused.body.error).toMatch(/resume it first/);
    });
  });

  describe('access', () => {
    it('needs WEBHOOKS_MANAGE and the webhooks feature (403), a login token (401)', async () => {
      const s = await setUp();
      const { deliveryId } = await delivered(s);
      const moderator = await memberWithToken(api.app, { communityId: s.community.id, role: 'MODERATOR' });
      const since = new Date(Date.now() - HOUR_MS).toISOString();
      const asModerator = [
        await call(api.app, 'POST', resendUrl(s, deliveryId), { token: moderator.token }),
        await call(api.app, 'POST', recoverUrl(s), { token: moderator.token, body: { since } }),
      ];
      expect(asModerator.map((r) => [r.status, r.body.code])).toEqual([
        [403, 'FORBIDDEN'],
        [403, 'FORBIDDEN'],
      ]);
      expect((await call(api.app, 'POST', resendUrl(s, deliveryId))).status).toBe(401);

      // the plan loses the feature: the same OWNER is refused
      await api.prisma.community.update({ where: { id: s.community.id }, data: { plan: 'FREE' } });
      await announceCommunityChange(api.app, s.community.id);
      const onFree = [
        await call(api.app, 'POST', resendUrl(s, deliveryId), { token: s.token }),
        await call(api.app, 'POST', recoverUrl(s), { token: s.token, body: { since } }),
      ];
      expect(onFree.map((r) => [r.status, r.body.code])).toEqual([
        [403, 'FEATURE_NOT_AVAILABLE'],
        [403, 'FEATURE_NOT_AVAILABLE'],
      ]);
    });

    it('rate limits resend and recover like test: 5 succeed, the 6th is 429', async () => {
      const s = await setUp();
      const { deliveryId } = await delivered(s);
      const since = new Date(Date.now() - HOUR_MS).toISOString();
      for (const send of [
        () => call(api.app, 'POST', resendUrl(s, deliveryId), { token: s.token }),
        () => call(api.app, 'POST', recoverUrl(s), { token: s.token, body: { since } }),
      ]) {
        const statuses: number[] = [];
        for (let i = 0; i < 5; i++) statuses.push((await send()).status);
        expect(statuses).toEqual(Array(5).fill(202));
        const limited = await send();
        expect(limited.status).toBe(429);
        expect(limited.body).toMatchObject({ code: 'RATE_LIMITED' });
        expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
    });
  });

  it('documents both routes in the OpenAPI document with their statuses', async () => {
    const doc = (await call(api.app, 'GET', '/api/docs-json')).body;
    const base = '/api/communities/{communityId}/webhooks/{webhookId}';
    const resend = doc.paths[`${base}/deliveries/{deliveryId}/resend`].post;
    const recover = doc.paths[`${base}/recover`].post;
    for (const operation of [resend, recover])
      expect(Object.keys(operation.responses).sort()).toEqual([
        '202',
        '400',
        '401',
        '403',
        '404',
        '409',
        '413',
        '415',
        '422',
        '429',
        '500',
      ]);
    const schemas = doc.components.schemas;
    expect(schemas.RecoverDeliveriesDto.required).toEqual(['since']);
    expect(Object.keys(schemas.RecoverDeliveriesDto.properties)).toEqual(
      expect.arrayContaining(['since', 'until', 'include']),
    );
    expect(schemas.RecoverDeliveriesDto.properties.include).toMatchObject({
      type: 'array',
      items: { type: 'string', enum: ['failed', 'missed'] },
    });
    expect(schemas.RecoverDeliveriesDto.properties.include.description).toMatch(
      /When left out: \["failed"\]/,
    );
    expect(schemas.RecoverResultDto.properties.queued).toBeDefined();
    expect(schemas.RecoverResultDto.properties.remaining).toMatchObject({ type: 'number' });
    expect(schemas.RecoverResultDto.properties.expired).toMatchObject({ type: 'number' });
    expect(schemas.RecoverResultDto.required).toEqual(
      expect.arrayContaining(['queued', 'remaining', 'expired']),
    );
  });
});
