import { loadConfig } from '../../src/config/app-config';
import { syntheticData } from '../utils/synthetic-event';
import type { SubscribableEvent } from '../../src/modules/events/event-catalog';
import { OutboxService } from '../../src/modules/events/outbox.service';
import { DeliveryProcessor } from '../../src/modules/webhooks/worker/delivery.processor';
import { DeliveryAttemptsStore } from '../../src/modules/webhooks/worker/delivery-attempts.store';
import { WebhookEndpointsStore } from '../../src/modules/webhooks/core/webhook-endpoints.store';
import { EndpointHealth } from '../../src/modules/webhooks/worker/endpoint-health.service';
import { WorkerRuntime } from '../../src/modules/webhooks/worker/worker-runtime.service';
import { useTestApp } from '../utils/app';
import { createCommunity, memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { verifyWebhook } from '../utils/webhook-receiver';
import { createEndpoint, DELIVERY_TEST_ENV, startTestWorker, waitFor } from '../utils/worker';
import { useDeliveryStack } from '../utils/delivery-stack';

describe('webhook delivery worker', () => {
  const stack = useDeliveryStack();

  async function raise(communityId: string, type: SubscribableEvent, data: Record<string, unknown> = {}) {
    return stack.api.prisma.$transaction((tx) =>
      stack.api.app.get(OutboxService).record(tx, communityId, type, syntheticData(data)),
    );
  }

  function attemptsOf(endpointId: string, messageId?: string) {
    return stack.api.prisma.webhookDelivery.findMany({
      where: { endpointId, ...(messageId ? { messageId } : {}) },
      orderBy: [{ messageId: 'asc' }, { attempt: 'asc' }],
    });
  }

  async function endpointOn(
    communityId: string,
    events: string[],
    options: { isActive?: boolean; disabledAt?: Date } = {},
  ) {
    const path = `/${unique('hook')}`;
    const endpoint = await createEndpoint(stack.api, communityId, {
      url: stack.receiver.url + path,
      events,
      ...options,
    });
    return { ...endpoint, path };
  }

  async function relayed(messageId: string) {
    const row = await stack.api.prisma.outboxEvent.findUnique({ where: { messageId } });
    return row?.relayedAt ? row : undefined;
  }

  it('keeps the processors out of the API process', () => {
    expect(() => stack.api.app.get(WorkerRuntime, { strict: false })).toThrow();
    expect(() => stack.api.app.get(DeliveryProcessor, { strict: false })).toThrow();
  });

  it('delivers a committed event, signed with Standard Webhooks, only to active subscribed endpoints', async () => {
    const community = await createCommunity(stack.api.app);
    const subscribed = await endpointOn(community.id, ['tweet.created', 'tweet.deleted']);
    const unsubscribed = await endpointOn(community.id, ['tweet.deleted']);
    const paused = await endpointOn(community.id, ['tweet.created'], { isActive: false });
    const disabled = await endpointOn(community.id, ['tweet.created'], {
      isActive: false,
      disabledAt: new Date(),
    });

    const event = await raise(community.id, 'tweet.created', { tweet: { id: 't1', content: 'hello' } });

    const [request] = await waitFor(
      'the delivery',
      () => stack.receiver.at(subscribed.path).length > 0 && stack.receiver.at(subscribed.path),
    );
    expect(request.headers['webhook-id']).toBe(event.id);
    expect(request.headers['content-type']).toBe('application/json');
    expect(verifyWebhook(request, subscribed.secret)).toEqual({
      id: event.id,
      type: 'tweet.created',
      timestamp: event.timestamp,
      communityId: community.id,
      subject: 't1',
      data: { tweet: { id: 't1', content: 'hello' } },
    });
    const [attempt] = await waitFor('the SUCCESS record', async () => {
      const rows = await attemptsOf(subscribed.id);
      return rows[0]?.status === 'SUCCESS' && rows;
    });
    expect(attempt).toMatchObject({
      messageId: event.id,
      eventType: 'tweet.created',
      attempt: 1,
      responseStatus: 200,
    });

    await waitFor('the outbox row to be relayed', () => relayed(event.id));
    for (const other of [unsubscribed, paused, disabled]) {
      expect(stack.receiver.at(other.path)).toHaveLength(0);
      expect(await attemptsOf(other.id)).toHaveLength(0);
    }
  });

  it('retries a failed delivery as new attempts of the same messageId, with the pending retry in the log', async () => {
    const community = await createCommunity(stack.api.app);
    const endpoint = await endpointOn(community.id, ['member.joined']);
    const pendingSeen: { attempt: number; nextAttemptAt: Date | null }[] = [];
    let calls = 0;
    stack.receiver.respond(endpoint.path, async (request) => {
      calls += 1;
      const row = await stack.api.prisma.webhookDelivery.findFirst({
        where: { endpointId: endpoint.id, messageId: String(request.headers['webhook-id']), attempt: calls },
      });
      if (row && row.status === 'PENDING')
        pendingSeen.push({ attempt: row.attempt, nextAttemptAt: row.nextAttemptAt });
      return calls === 1 ? { status: 500, body: 'boom' } : calls === 2 ? { status: 503 } : { status: 204 };
    });

    const event = await raise(community.id, 'member.joined', { member: { id: 'm1' } });

    const rows = await waitFor('three attempts, the last one successful', async () => {
      const all = await attemptsOf(endpoint.id);
      return all.length === 3 && all[2].status === 'SUCCESS' && all;
    });
    expect(rows.map((r) => [r.messageId, r.attempt, r.status, r.responseStatus])).toEqual([
      [event.id, 1, 'FAILED', 500],
      [event.id, 2, 'FAILED', 503],
      [event.id, 3, 'SUCCESS', 204],
    ]);
    expect(rows[0].responseBody).toBe('boom');
    expect(rows[0].error).toContain('500');
    // every attempt is PENDING while in flight, with the time it was due: the relay wrote attempt 1
    // (due at once), each failure wrote the next one ahead
    expect(pendingSeen.map((p) => p.attempt)).toEqual([1, 2, 3]);
    expect(pendingSeen.map((p) => p.nextAttemptAt instanceof Date)).toEqual([true, true, true]);
    const requests = stack.receiver.at(endpoint.path);
    expect(requests.map((r) => r.headers['webhook-id'])).toEqual([event.id, event.id, event.id]);
    for (const request of requests)
      expect(verifyWebhook(request, endpoint.secret)).toMatchObject({ id: event.id });

    // the worker records the success on the endpoint just after the attempt's row: wait for it
    const health = await waitFor('the success to reset the failure counter', async () => {
      const row = await stack.api.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
      return row.consecutiveFailures === 0 && row;
    });
    expect(health).toMatchObject({
      consecutiveFailures: 0,
      failingSince: null,
      isActive: true,
      disabledAt: null,
    });
    expect(health.lastSuccessAt).toBeInstanceOf(Date);
  });

  it('auto-disables an endpoint after the configured failures, cancels its pending retries; PATCH re-enables it', async () => {
    const { community, token } = await memberWithToken(stack.api.app, { plan: 'PRO', role: 'OWNER' });
    const endpoint = await endpointOn(community.id, ['tweet.updated']);
    stack.receiver.respond(endpoint.path, () => ({ status: 500 }));
    // a retry of an earlier event, due later: it must be cancelled when the endpoint is disabled
    const waiting = await stack.api.prisma.webhookDelivery.create({
      data: {
        communityId: community.id,
        endpointId: endpoint.id,
        messageId: 'msg_earlier',
        eventType: 'tweet.updated',
        attempt: 2,
        nextAttemptAt: new Date(Date.now() + 3_600_000),
      },
    });

    const event = await raise(community.id, 'tweet.updated', { tweet: { id: 't2' } });

    const disabled = await waitFor('the endpoint to be auto-disabled', async () => {
      const row = await stack.api.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
      return row.disabledAt && row;
    });
    expect(disabled).toMatchObject({ isActive: false, consecutiveFailures: 3 });
    const rows = await waitFor('no attempt left pending', async () => {
      const all = await attemptsOf(endpoint.id, event.id);
      return all.length === 3 && all.every((r) => r.status === 'FAILED') && all;
    });
    expect(rows.map((r) => r.attempt)).toEqual([1, 2, 3]);
    const cancelled = await stack.api.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: waiting.id } });
    expect(cancelled.status).toBe('FAILED');
    expect(cancelled.error).toMatch(/auto-disabled after 3 consecutive failures/);

    // deliveries stop while disabled
    const missed = await raise(community.id, 'tweet.updated', { tweet: { id: 't3' } });
    await waitFor('the missed event to be relayed', () => relayed(missed.id));
    expect(await attemptsOf(endpoint.id, missed.id)).toHaveLength(0);

    const res = await call(
      stack.api.app,
      'PATCH',
      `/api/communities/${community.id}/webhooks/${endpoint.id}`,
      {
        token,
        body: { isActive: true },
      },
    );
    expect(res.status).toBe(200);
    const enabled = await stack.api.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    expect(enabled).toMatchObject({ isActive: true, disabledAt: null, consecutiveFailures: 0 });
    stack.receiver.respond(endpoint.path, () => ({ status: 200 }));
    const next = await raise(community.id, 'tweet.updated', { tweet: { id: 't4' } });
    const [delivered] = await waitFor('the delivery after re-enable', async () => {
      const rows = await attemptsOf(endpoint.id, next.id);
      return rows[0]?.status === 'SUCCESS' && rows;
    });
    expect(delivered.attempt).toBe(1);
    // re-enabling does not replay what the endpoint missed while disabled
    expect(await attemptsOf(endpoint.id, missed.id)).toHaveLength(0);
  });

  it('disables an endpoint at once when the target answers 410 Gone, without retrying', async () => {
    const community = await createCommunity(stack.api.app);
    const endpoint = await endpointOn(community.id, ['like.created']);
    stack.receiver.respond(endpoint.path, () => ({ status: 410 }));

    const event = await raise(community.id, 'like.created', { like: { id: 'l1' } });

    const row = await waitFor('the endpoint to be disabled', async () => {
      const found = await stack.api.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
      return found.disabledAt && found;
    });
    expect(row.isActive).toBe(false);
    const attempts = await attemptsOf(endpoint.id, event.id);
    expect(attempts.map((a) => [a.attempt, a.status, a.responseStatus])).toEqual([[1, 'FAILED', 410]]);
    expect(stack.receiver.at(endpoint.path)).toHaveLength(1);
  });

  it('records a pending retry of an endpoint paused meanwhile as FAILED and sends nothing more', async () => {
    const community = await createCommunity(stack.api.app);
    const endpoint = await endpointOn(community.id, ['comment.created']);
    stack.receiver.respond(endpoint.path, async () => {
      await stack.api.prisma.webhookEndpoint.update({
        where: { id: endpoint.id },
        data: { isActive: false },
      });
      return { status: 500 };
    });

    const event = await raise(community.id, 'comment.created', { comment: { id: 'c1' } });

    const retry = await waitFor('the retry to be closed', async () => {
      const all = await attemptsOf(endpoint.id, event.id);
      return all.length === 2 && all[1].status === 'FAILED' && all[1];
    });
    expect(retry).toMatchObject({ attempt: 2, error: 'endpoint paused' });
    expect(stack.receiver.at(endpoint.path)).toHaveLength(1);
  });

  it('two workers relay and deliver each event exactly once', async () => {
    const second = await startTestWorker();
    try {
      const community = await createCommunity(stack.api.app);
      const endpoint = await endpointOn(community.id, ['tweet.created']);
      const count = 300;
      const events = [];
      for (let i = 0; i < count; i += 50) {
        events.push(
          ...(await stack.api.prisma.$transaction(async (tx) => {
            const batch = [];
            for (let j = i; j < i + 50; j++) {
              batch.push(
                await stack.api.app
                  .get(OutboxService)
                  .record(tx, community.id, 'tweet.created', syntheticData({ n: j })),
              );
            }
            return batch;
          })),
        );
      }
      await waitFor(
        'every delivery to be recorded as SUCCESS',
        async () =>
          (await stack.api.prisma.webhookDelivery.count({
            where: { endpointId: endpoint.id, status: 'SUCCESS' },
          })) === count,
        20_000,
      );
      const ids = stack.receiver.at(endpoint.path).map((r) => r.headers['webhook-id']);
      expect(ids).toHaveLength(count);
      expect(new Set(ids)).toEqual(new Set(events.map((e) => e.id)));
      expect(await stack.api.prisma.webhookDelivery.count({ where: { endpointId: endpoint.id } })).toBe(
        count,
      );
    } finally {
      await second.stop();
    }
  });
});

describe('failure counter (docs/product-decisions.md#5-webhooks)', () => {
  const api = useTestApp(DELIVERY_TEST_ENV);

  /** EndpointHealth on the test app's database, with the given endpoints store and configuration. */
  const healthWith = (store = new WebhookEndpointsStore(api.prisma), config = api.config) =>
    new EndpointHealth(
      api.prisma,
      store,
      new DeliveryAttemptsStore(api.prisma),
      api.app.get(OutboxService),
      config,
    );

  it('does not auto-disable a receiver whose failing streak is shorter than WEBHOOK_AUTO_DISABLE_AFTER', async () => {
    const config = loadConfig({
      ...process.env,
      ...DELIVERY_TEST_ENV,
      WEBHOOK_AUTO_DISABLE_AFTER: '1h',
    }).config;
    const health = healthWith(undefined, config);
    const community = await createCommunity(api.app);
    const endpoint = await api.prisma.webhookEndpoint.create({
      data: { communityId: community.id, url: 'http://127.0.0.1:1/x', events: ['tweet.created'] },
    });

    const results = await Promise.all(
      Array.from({ length: 8 }, () => health.recordFailure(community.id, endpoint.id)),
    );

    expect(results.every((disabled) => !disabled)).toBe(true);
    const failing = await api.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    expect(failing).toMatchObject({ isActive: true, disabledAt: null, consecutiveFailures: 8 });
    expect(failing.failingSince).toBeInstanceOf(Date);

    await health.recordSuccess(community.id, endpoint.id);
    const healthy = await api.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    expect(healthy).toMatchObject({ consecutiveFailures: 0, failingSince: null });
    expect(healthy.lastSuccessAt).toBeInstanceOf(Date);
  });

  it('notes the successes of many endpoints in one statement, each answered for itself', async () => {
    const store = new WebhookEndpointsStore(api.prisma);
    const health = healthWith(store);
    const community = await createCommunity(api.app);
    const endpointWith = (state: { consecutiveFailures: number; failingAnnounced: boolean }) =>
      api.prisma.webhookEndpoint.create({
        data: {
          communityId: community.id,
          url: 'http://127.0.0.1:1/x',
          events: ['tweet.created'],
          failingSince: state.consecutiveFailures > 0 ? new Date() : null,
          ...state,
        },
      });
    const failing = await endpointWith({ consecutiveFailures: 2, failingAnnounced: false });
    const announced = await endpointWith({ consecutiveFailures: 5, failingAnnounced: true });
    const healthy = await endpointWith({ consecutiveFailures: 0, failingAnnounced: false });
    const neighbour = await createCommunity(api.app);
    const neighbours = await api.prisma.webhookEndpoint.create({
      data: {
        communityId: neighbour.id,
        url: 'http://127.0.0.1:1/x',
        events: ['tweet.created'],
        consecutiveFailures: 2,
        failingSince: new Date(),
      },
    });
    const written = jest.spyOn(store, 'recordSuccesses');

    await Promise.all([
      health.recordSuccess(community.id, failing.id),
      health.recordSuccess(community.id, announced.id),
      health.recordSuccess(community.id, healthy.id),
      // another community's endpoint asked under this community: found by nobody, written by nobody
      health.recordSuccess(community.id, neighbours.id),
    ]);

    // one statement for the four, then the announced streak's end in a transaction of its own
    expect(written.mock.calls.map(([, items, options]) => [items.length, options])).toEqual([
      [4, { keepAnnounced: true }],
      [1, { keepAnnounced: false }],
    ]);
    const rows = await api.prisma.webhookEndpoint.findMany({
      where: { id: { in: [failing.id, announced.id, healthy.id] } },
    });
    for (const row of rows) {
      expect(row).toMatchObject({ consecutiveFailures: 0, failingSince: null, failingAnnounced: false });
      expect(row.lastSuccessAt).toBeInstanceOf(Date);
    }
    const recovered = await api.prisma.outboxEvent.findMany({
      where: { communityId: community.id, eventType: 'webhook.endpoint.recovered' },
    });
    expect(recovered.map((e) => (e.payload as { data: { endpointId: string } }).data.endpointId)).toEqual([
      announced.id,
    ]);
    expect(
      await api.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: neighbours.id } }),
    ).toMatchObject({ consecutiveFailures: 2, lastSuccessAt: null });
    expect(await api.prisma.outboxEvent.count({ where: { communityId: neighbour.id } })).toBe(0);
  });

  it("records a burst of one endpoint's successes once per process: the others have nothing to add", async () => {
    const store = new WebhookEndpointsStore(api.prisma);
    const health = healthWith(store);
    const community = await createCommunity(api.app);
    const endpoint = await api.prisma.webhookEndpoint.create({
      data: {
        communityId: community.id,
        url: 'http://127.0.0.1:1/x',
        events: ['tweet.created'],
        consecutiveFailures: 3,
        failingSince: new Date(),
      },
    });
    const written = jest.spyOn(store, 'recordSuccesses');

    // the sends in flight when the endpoint recovers all read it failing, and all report their success
    await Promise.all(Array.from({ length: 8 }, () => health.recordSuccess(community.id, endpoint.id)));

    expect(written).toHaveBeenCalledTimes(1);
    expect(written.mock.calls[0][1]).toEqual([{ communityId: community.id, endpointId: endpoint.id }]);
    const healthy = await api.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    expect(healthy).toMatchObject({ consecutiveFailures: 0, failingSince: null });
    // the next one, once that is recorded, writes again (only when it has something to change)
    await health.recordSuccess(community.id, endpoint.id);
    expect(written).toHaveBeenCalledTimes(2);
  });
});
