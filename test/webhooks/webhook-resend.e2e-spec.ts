import { DeliveryQueue } from '../../src/modules/webhooks/core/delivery-queue.service';
import { DeliveryProcessor } from '../../src/modules/webhooks/worker/delivery.processor';
import { SUPERSEDED_BY_RESEND } from '../../src/modules/webhooks/worker/delivery-attempts.store';
import { memberWithToken, unique, announceCommunityChange } from '../utils/factories';
import { call } from '../utils/http';
import { waitFor } from '../utils/worker';
import { useDeliveryStack, watchQueuedJobs } from '../utils/delivery-stack';
import { hooks, HOUR_MS, RESEND_API_ENV, resendFixtures } from './resend-fixtures';

/** Resend and recover (docs/product-decisions.md#5-webhooks): through the API, delivered by a real worker. */
describe('webhook resend and recover', () => {
  const stack = useDeliveryStack({ apiEnv: RESEND_API_ENV });
  const { setUp, raise, attemptsOf, settled, autoDisabled, delivered, resendUrl, recoverUrl } =
    resendFixtures(stack);

  describe('resend', () => {
    it('sends the event again with the same webhook-id as the next attempt, answered 202 with the PENDING attempt', async () => {
      const s = await setUp();
      const { event, deliveryId } = await delivered(s);

      const res = await call(stack.api.app, 'POST', resendUrl(s, deliveryId), { token: s.token });
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
      const requests = stack.receiver.at(s.path);
      expect(requests.map((r) => r.headers['webhook-id'])).toEqual([event.id, event.id]);
      expect(JSON.parse(requests[1].body)).toEqual(JSON.parse(requests[0].body));
      // the log lists it like any other attempt
      const log = await call(stack.api.app, 'GET', `${hooks(s.community.id)}/${s.endpointId}/deliveries`, {
        token: s.token,
      });
      expect(log.body.data.items[0]).toMatchObject({ id: res.body.data.id, attempt: 2, status: 'SUCCESS' });
    });

    it('sends a resend asked for while an attempt of the message is in flight only after that attempt ended', async () => {
      const s = await setUp();
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let holding = true;
      stack.receiver.respond(s.path, async () => {
        if (holding) await held;
        return { status: 200 };
      });
      const event = await raise(s.community.id);
      await waitFor('the first attempt at the receiver', () => stack.receiver.at(s.path).length === 1);
      const [first] = await attemptsOf(s.endpointId, event.id);
      expect(first).toMatchObject({ status: 'PENDING', startedAt: expect.any(Date) });

      const res = await call(stack.api.app, 'POST', resendUrl(s, first.id), { token: s.token });
      expect(res.status).toBe(202);
      // the resend's job has run and found the first attempt in flight: it waits, unsent and unclaimed
      await waitFor('the resend to be asked for', async () => {
        const [, resent] = await attemptsOf(s.endpointId, event.id);
        return (
          resent &&
          (await stack.worker.context
            .get(DeliveryQueue)
            .queue.getJobState(`${event.id}.${s.endpointId}.2`)) === 'delayed'
        );
      });
      const [, waiting] = await attemptsOf(s.endpointId, event.id);
      expect(waiting).toMatchObject({ attempt: 2, status: 'PENDING', startedAt: null });
      expect(stack.receiver.at(s.path)).toHaveLength(1);

      holding = false;
      const releasedAt = Date.now();
      release();
      const rows = await settled(s.endpointId, event.id, 2);
      expect(rows.map((r) => [r.attempt, r.status])).toEqual([
        [1, 'SUCCESS'],
        [2, 'SUCCESS'],
      ]);
      const requests = stack.receiver.at(s.path);
      expect(requests).toHaveLength(2);
      expect(requests[1].receivedAt).toBeGreaterThanOrEqual(releasedAt);
    });

    it('closes the retry still waiting once the resend succeeded, saying why, so it never sends the message again', async () => {
      const s = await setUp();
      const { event, deliveryId } = await delivered(s);
      // attempt 2 as the retry schedule leaves it: waiting, due in an hour
      const waiting = await stack.api.prisma.webhookDelivery.create({
        data: {
          communityId: s.community.id,
          endpointId: s.endpointId,
          messageId: event.id,
          eventType: 'tweet.created',
          attempt: 2,
          nextAttemptAt: new Date(Date.now() + HOUR_MS),
        },
      });

      const res = await call(stack.api.app, 'POST', resendUrl(s, deliveryId), { token: s.token });
      expect(res.body.data.attempt).toBe(3);
      const rows = await settled(s.endpointId, event.id, 3);
      expect(rows.map((r) => [r.attempt, r.status, r.error, r.nextAttemptAt])).toEqual([
        [1, 'SUCCESS', null, null],
        [2, 'FAILED', SUPERSEDED_BY_RESEND, null],
        [3, 'SUCCESS', null, null],
      ]);
      // its job, when it runs, finds nothing to send
      await stack.worker.context.get(DeliveryProcessor).deliver({
        communityId: s.community.id,
        endpointId: s.endpointId,
        messageId: event.id,
        eventType: 'tweet.created',
        attempt: waiting.attempt,
        outboxId: '0',
        payload: JSON.parse(stack.receiver.at(s.path)[0].body),
      });
      expect(stack.receiver.at(s.path).map((r) => r.headers['webhook-id'])).toEqual([event.id, event.id]);
    });

    it('with an Idempotency-Key, queues the attempt only once its row is committed (a worker must see it)', async () => {
      const s = await setUp();
      const { deliveryId } = await delivered(s);
      // another connection, as a worker's: the request's own would see its uncommitted rows
      const { queued, stop } = await watchQueuedJobs(stack.api);
      try {
        const res = await call(stack.api.app, 'POST', resendUrl(s, deliveryId), {
          token: s.token,
          headers: { 'idempotency-key': unique('key') },
        });
        expect(res.status).toBe(202);
        await waitFor('the attempt to be queued', () => queued.length > 0);
        expect(queued.map((q) => q.visible)).toEqual([true]);
      } finally {
        await stop();
      }
    });

    it('numbers the new attempt one above the highest so far, whichever attempt was named', async () => {
      const s = await setUp();
      let failing = true;
      stack.receiver.respond(s.path, () => ({ status: failing ? 500 : 200 }));
      const event = await raise(s.community.id);
      // 3 attempts (the test schedule), all FAILED; they also auto-disable the endpoint (test settings)
      await autoDisabled(s.endpointId);
      const rows = await settled(s.endpointId, event.id, 3);
      expect(rows.map((r) => r.status)).toEqual(['FAILED', 'FAILED', 'FAILED']);

      // disabled → 409 telling to resume first
      const refused = await call(stack.api.app, 'POST', resendUrl(s, rows[0].id), { token: s.token });
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ success: false, code: 'CONFLICT' });
      expect(refused.body.error).toMatch(/disabled.*resume it first/);

      const resumed = await call(stack.api.app, 'PATCH', `${hooks(s.community.id)}/${s.endpointId}`, {
        token: s.token,
        body: { isActive: true },
      });
      expect(resumed.status).toBe(200);
      failing = false;
      const res = await call(stack.api.app, 'POST', resendUrl(s, rows[0].id), { token: s.token });
      expect(res.status).toBe(202);
      expect(res.body.data).toMatchObject({ messageId: event.id, attempt: 4, status: 'PENDING' });
      const after = await settled(s.endpointId, event.id, 4);
      expect(after[3]).toMatchObject({ attempt: 4, status: 'SUCCESS', responseStatus: 200 });
      expect(stack.receiver.at(s.path).map((r) => r.headers['webhook-id'])).toEqual(Array(4).fill(event.id));
    });

    it('answers 409 on a paused endpoint, and writes nothing', async () => {
      const s = await setUp();
      const { event, deliveryId } = await delivered(s);
      await call(stack.api.app, 'PATCH', `${hooks(s.community.id)}/${s.endpointId}`, {
        token: s.token,
        body: { isActive: false },
      });
      const res = await call(stack.api.app, 'POST', resendUrl(s, deliveryId), { token: s.token });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: 'CONFLICT' });
      expect(res.body.error).toMatch(/paused.*resume it first/);
      expect(await attemptsOf(s.endpointId, event.id)).toHaveLength(1);
    });

    it('answers 409 for a test delivery (sent again through the test route)', async () => {
      const s = await setUp();
      const tested = await call(stack.api.app, 'POST', `${hooks(s.community.id)}/${s.endpointId}/test`, {
        token: s.token,
      });
      expect(tested.status).toBe(200);
      const res = await call(stack.api.app, 'POST', resendUrl(s, tested.body.data.id), { token: s.token });
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
        const res = await call(stack.api.app, 'POST', url, { token: a.token });
        expect({ url, status: res.status, code: res.body.code }).toEqual({
          url,
          status: 404,
          code: 'NOT_FOUND',
        });
      }
      expect((await call(stack.api.app, 'POST', resendUrl(a, 'nope'), { token: a.token })).status).toBe(400);
      // nothing was written for B
      expect(await attemptsOf(b.endpointId, ofB.event.id)).toHaveLength(1);
      // a foreign recover is a 404 too
      const foreign = await call(stack.api.app, 'POST', `${hooks(a.community.id)}/${b.endpointId}/recover`, {
        token: a.token,
        body: { since: new Date(Date.now() - HOUR_MS).toISOString() },
      });
      expect(foreign.status).toBe(404);
    });
  });

  describe('access', () => {
    it('needs WEBHOOKS_MANAGE and the webhooks feature (403), a login token (401)', async () => {
      const s = await setUp();
      const { deliveryId } = await delivered(s);
      const moderator = await memberWithToken(stack.api.app, {
        communityId: s.community.id,
        role: 'MODERATOR',
      });
      const since = new Date(Date.now() - HOUR_MS).toISOString();
      const asModerator = [
        await call(stack.api.app, 'POST', resendUrl(s, deliveryId), { token: moderator.token }),
        await call(stack.api.app, 'POST', recoverUrl(s), { token: moderator.token, body: { since } }),
      ];
      expect(asModerator.map((r) => [r.status, r.body.code])).toEqual([
        [403, 'FORBIDDEN'],
        [403, 'FORBIDDEN'],
      ]);
      expect((await call(stack.api.app, 'POST', resendUrl(s, deliveryId))).status).toBe(401);

      // the plan loses the feature: the same OWNER is refused
      await stack.api.prisma.community.update({ where: { id: s.community.id }, data: { plan: 'FREE' } });
      await announceCommunityChange(stack.api.app, s.community.id);
      const onFree = [
        await call(stack.api.app, 'POST', resendUrl(s, deliveryId), { token: s.token }),
        await call(stack.api.app, 'POST', recoverUrl(s), { token: s.token, body: { since } }),
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
        () => call(stack.api.app, 'POST', resendUrl(s, deliveryId), { token: s.token }),
        () => call(stack.api.app, 'POST', recoverUrl(s), { token: s.token, body: { since } }),
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
    const doc = (await call(stack.api.app, 'GET', '/api/docs-json')).body;
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
