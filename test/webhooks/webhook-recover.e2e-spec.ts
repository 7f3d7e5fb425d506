import { RequestedAttemptsStore } from '../../src/modules/webhooks/requested-attempts.store';
import { unique } from '../utils/factories';
import { call } from '../utils/http';
import { waitFor } from '../utils/worker';
import { syntheticData } from '../utils/synthetic-event';
import { useDeliveryStack } from '../utils/delivery-stack';
import { hooks, HOUR_MS, RECOVER_MAX, RESEND_API_ENV, resendFixtures } from './resend-fixtures';

/** Recover (docs/product-decisions.md#5-webhooks): through the API, delivered by a real worker. */
describe('webhook recover', () => {
  const stack = useDeliveryStack({ apiEnv: RESEND_API_ENV });
  const { setUp, raise, attemptsOf, settled, autoDisabled, anotherOwner, recoverUrl } = resendFixtures(stack);

  describe('recover', () => {
    it('re-sends once every event whose latest attempt FAILED in the window; a second call queues nothing', async () => {
      const s = await setUp();
      let failing = true;
      stack.receiver.respond(s.path, () => ({ status: failing ? 503 : 200 }));
      // two events, one after the other, each failing all 3 attempts (the test schedule) until the
      // endpoint is auto-disabled (test settings; nothing is left pending), then re-enabled
      const failed = [];
      for (let i = 0; i < 2; i++) {
        const event = await raise(s.community.id);
        await autoDisabled(s.endpointId);
        await settled(s.endpointId, event.id, 3);
        await call(stack.api.app, 'PATCH', `${hooks(s.community.id)}/${s.endpointId}`, {
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
      const res = await call(stack.api.app, 'POST', recoverUrl(s), { token: s.token, body: { since } });
      expect(res.status).toBe(202);
      expect(res.body.data).toEqual({ queued: 2, remaining: 0, expired: 0 });
      const again = await call(stack.api.app, 'POST', recoverUrl(s), { token: s.token, body: { since } });
      expect(again.body.data).toEqual({ queued: 0, remaining: 0, expired: 0 });

      for (const event of [first, second]) {
        const rows = await settled(s.endpointId, event.id, before[event.id] + 1);
        expect(rows.at(-1)).toMatchObject({ attempt: before[event.id] + 1, status: 'SUCCESS' });
      }
      expect(await attemptsOf(s.endpointId, ok.id)).toHaveLength(1);
      // now their latest attempts succeeded: nothing left to recover
      const third = await call(stack.api.app, 'POST', recoverUrl(s), { token: s.token, body: { since } });
      expect(third.body.data).toEqual({ queued: 0, remaining: 0, expired: 0 });
    });

    it('only looks at attempts created in [since, until)', async () => {
      const s = await setUp();
      stack.receiver.respond(s.path, () => ({ status: 500 }));
      const event = await raise(s.community.id);
      await autoDisabled(s.endpointId);
      await settled(s.endpointId, event.id, 3);
      await call(stack.api.app, 'PATCH', `${hooks(s.community.id)}/${s.endpointId}`, {
        token: s.token,
        body: { isActive: true },
      });
      const res = await call(stack.api.app, 'POST', recoverUrl(s), {
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
        await stack.api.prisma.outboxEvent.create({
          data: {
            communityId: s.community.id,
            messageId,
            eventType: 'tweet.created',
            payload: body,
            relayedAt: new Date(),
          },
        });
        await stack.api.prisma.webhookDelivery.create({
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

      const first = await call(stack.api.app, 'POST', recoverUrl(s), { token: s.token, body: { since } });
      expect(first.status).toBe(202);
      expect(first.body.data).toEqual({ queued: RECOVER_MAX, remaining: count - RECOVER_MAX, expired: 0 });
      const second = await call(stack.api.app, 'POST', recoverUrl(s), { token: s.token, body: { since } });
      expect(second.body.data).toEqual({ queued: count - RECOVER_MAX, remaining: 0, expired: 0 });
      const third = await call(stack.api.app, 'POST', recoverUrl(s), { token: s.token, body: { since } });
      expect(third.body.data).toEqual({ queued: 0, remaining: 0, expired: 0 });

      // each event got exactly one new attempt, and the receiver each event once
      for (const messageId of messageIds) {
        const rows = await settled(s.endpointId, messageId, 2);
        expect(rows.map((r) => [r.attempt, r.status])).toEqual([
          [1, 'FAILED'],
          [2, 'SUCCESS'],
        ]);
      }
      const received = stack.receiver.at(s.path).map((r) => r.headers['webhook-id']);
      expect(received.sort()).toEqual([...messageIds].sort());
    });

    it('counts missed events against the same WEBHOOK_RECOVER_MAX, after the failed ones, in commit order', async () => {
      const s = await setUp();
      const failed = await failedEvents(s, 2);
      await call(stack.api.app, 'PATCH', `${hooks(s.community.id)}/${s.endpointId}`, {
        token: s.token,
        body: { isActive: false },
      });
      const missed: string[] = [];
      for (let i = 0; i < 3; i++) missed.push((await raise(s.community.id)).id);
      await waitFor('3 missed events', async () => {
        const count = await stack.api.prisma.webhookMissedEvent.count({
          where: { endpointId: s.endpointId },
        });
        return count === 3;
      });
      await call(stack.api.app, 'PATCH', `${hooks(s.community.id)}/${s.endpointId}`, {
        token: s.token,
        body: { isActive: true },
      });
      const since = new Date(Date.now() - HOUR_MS).toISOString();
      const body = { since, include: ['failed', 'missed'] };
      const first = await call(stack.api.app, 'POST', recoverUrl(s), { token: s.token, body });
      expect(first.status).toBe(202);
      expect(first.body.data).toEqual({ queued: RECOVER_MAX, remaining: 2, expired: 0 });
      // the failed two, then the first missed one
      for (const messageId of failed) await settled(s.endpointId, messageId, 2);
      await settled(s.endpointId, missed[0], 1);
      expect(await attemptsOf(s.endpointId, missed[1])).toEqual([]);
      const second = await call(stack.api.app, 'POST', recoverUrl(s), { token: s.token, body });
      expect(second.body.data).toEqual({ queued: 2, remaining: 0, expired: 0 });
      for (const messageId of missed.slice(1)) await settled(s.endpointId, messageId, 1);
      const third = await call(stack.api.app, 'POST', recoverUrl(s), { token: s.token, body });
      expect(third.body.data).toEqual({ queued: 0, remaining: 0, expired: 0 });
    });

    it('writes recover in pages of bounded statements, oldest attempt first, each page after the last', async () => {
      const s = await setUp();
      // paused, so nothing sends what the pages write (the store writes whatever the service asks)
      await call(stack.api.app, 'PATCH', `${hooks(s.community.id)}/${s.endpointId}`, {
        token: s.token,
        body: { isActive: false },
      });
      const messageIds = await failedEvents(s, 5);
      const store = stack.api.app.get(RequestedAttemptsStore);
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
        const res = await call(stack.api.app, 'POST', recoverUrl(s), { token, body });
        expect({ body, status: res.status, code: res.body.code }).toEqual({
          body,
          status: 400,
          code: 'VALIDATION_ERROR',
        });
      }
      // exactly 14 days is allowed
      const fourteen = await call(stack.api.app, 'POST', recoverUrl(s), {
        token: s.token,
        body: { since: new Date(now - 14 * 24 * HOUR_MS).toISOString(), until: new Date(now).toISOString() },
      });
      expect(fourteen.status).toBe(202);

      await call(stack.api.app, 'PATCH', `${hooks(s.community.id)}/${s.endpointId}`, {
        token: s.token,
        body: { isActive: false },
      });
      const paused = await call(stack.api.app, 'POST', recoverUrl(s), {
        token: s.token,
        body: { since: new Date(now - HOUR_MS).toISOString() },
      });
      expect(paused.status).toBe(409);
      expect(paused.body.error).toMatch(/resume it first/);
    });
  });
});
