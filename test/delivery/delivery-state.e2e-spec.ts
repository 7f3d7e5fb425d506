import { randomUUID } from 'node:crypto';
import { newMessageId } from '../../src/modules/events/event-body';
import { OUTCOME_UNKNOWN } from '../../src/modules/webhooks/worker/delivery-sweep.store';
import type { DeliveryJobData } from '../../src/modules/webhooks/core/delivery-job';
import { deliveryJobId } from '../../src/modules/webhooks/core/delivery-job';
import { DeliveryQueue } from '../../src/modules/webhooks/core/delivery-queue.service';
import { DeliveryProcessor } from '../../src/modules/webhooks/worker/delivery.processor';
import { useTestApp } from '../utils/app';
import { createCommunity, memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { createEndpoint, DELIVERY_TEST_ENV, outboxRetentionOf, waitFor } from '../utils/worker';
import { useDeliveryStack } from '../utils/delivery-stack';

/**
 * PostgreSQL owns each delivery's state (docs/product-decisions.md#5-webhooks): a PENDING row is sent even
 * when its queue job is gone, a claimed attempt is sent once however many jobs run it, a claim whose worker
 * died is closed as an unknown outcome and retried, the log shows the body and the request id.
 */
describe('delivery state', () => {
  const stack = useDeliveryStack();

  async function endpointFor(communityId: string, events = ['tweet.created']) {
    const path = `/${unique('state')}`;
    const endpoint = await createEndpoint(stack.api, communityId, { url: stack.receiver.url + path, events });
    return { ...endpoint, path };
  }

  /** An event already relayed (the relay never sees it again), with its body in the outbox. */
  async function relayedEvent(communityId: string) {
    const messageId = newMessageId();
    const subject = randomUUID();
    const payload = {
      id: messageId,
      type: 'tweet.created',
      timestamp: new Date().toISOString(),
      communityId,
      subject,
      data: { tweet: { id: subject } },
    };
    const row = await stack.api.prisma.outboxEvent.create({
      data: { communityId, messageId, eventType: 'tweet.created', payload, subject, relayedAt: new Date() },
    });
    return { messageId, payload, outboxId: row.id.toString() };
  }

  /** Attempt 1 of the event, PENDING and unclaimed, due in an hour: the sweep leaves it alone until then. */
  function attemptDueInAnHour(communityId: string, endpointId: string, messageId: string) {
    return stack.api.prisma.webhookDelivery.create({
      data: {
        communityId,
        endpointId,
        messageId,
        eventType: 'tweet.created',
        attempt: 1,
        nextAttemptAt: new Date(Date.now() + 3_600_000),
      },
    });
  }

  /** The queue job of attempt 1 of the event, as the relay would add it. */
  function jobOf(
    communityId: string,
    endpointId: string,
    event: Awaited<ReturnType<typeof relayedEvent>>,
  ): DeliveryJobData {
    return {
      communityId,
      endpointId,
      messageId: event.messageId,
      eventType: 'tweet.created',
      attempt: 1,
      outboxId: event.outboxId,
      payload: event.payload as DeliveryJobData['payload'],
    };
  }

  it('sends a due PENDING attempt whose queue job was lost, once, within a sweep interval', async () => {
    const community = await createCommunity(stack.api.app);
    const endpoint = await endpointFor(community.id);
    const event = await relayedEvent(community.id);
    // the state the relay commits, with no job in Redis (as after FLUSHALL)
    await stack.api.prisma.webhookDelivery.create({
      data: {
        communityId: community.id,
        endpointId: endpoint.id,
        messageId: event.messageId,
        eventType: 'tweet.created',
        attempt: 1,
        nextAttemptAt: new Date(),
      },
    });

    const [row] = await waitFor('the swept attempt to succeed', async () => {
      const rows = await stack.api.prisma.webhookDelivery.findMany({ where: { endpointId: endpoint.id } });
      return rows[0]?.status === 'SUCCESS' && rows;
    });
    expect(row.attempt).toBe(1);
    expect(row.startedAt).toBeInstanceOf(Date);
    const requests = stack.receiver.at(endpoint.path);
    expect(requests).toHaveLength(1);
    expect(JSON.parse(requests[0].body)).toEqual(event.payload);
  });

  it('sends a claimed attempt once however many jobs run it', async () => {
    const community = await createCommunity(stack.api.app);
    const endpoint = await endpointFor(community.id);
    const event = await relayedEvent(community.id);
    // due in an hour: the sweep leaves it alone, only the jobs below run it
    await attemptDueInAnHour(community.id, endpoint.id, event.messageId);
    const job = jobOf(community.id, endpoint.id, event);
    const processor = stack.worker.context.get(DeliveryProcessor);

    await Promise.all(Array.from({ length: 5 }, () => processor.deliver(job)));
    await processor.deliver(job);

    expect(stack.receiver.at(endpoint.path)).toHaveLength(1);
    const rows = await stack.api.prisma.webhookDelivery.findMany({ where: { endpointId: endpoint.id } });
    expect(rows.map((r) => [r.attempt, r.status])).toEqual([[1, 'SUCCESS']]);
  });

  it('sends a due attempt whose job BullMQ itself failed (a finished job id does not block the re-queue)', async () => {
    const community = await createCommunity(stack.api.app);
    const endpoint = await endpointFor(community.id);
    const event = await relayedEvent(community.id);
    // not due yet: only the job below runs for now
    const row = await attemptDueInAnHour(community.id, endpoint.id, event.messageId);
    // a job with the attempt's id that fails for a reason of its own (its claim cannot run) and
    // has no tries left: BullMQ keeps it in its failed set, as after retries spent on a database outage
    const queue = stack.worker.context.get(DeliveryQueue).queue;
    const jobId = deliveryJobId(event.messageId, endpoint.id, 1);
    await queue.add(
      'tweet.created',
      { ...jobOf(community.id, endpoint.id, event), communityId: 'not-a-uuid' },
      {
        jobId,
        attempts: 1,
      },
    );
    await waitFor('BullMQ to fail the job', async () => (await queue.getJobState(jobId)) === 'failed');

    await stack.api.prisma.webhookDelivery.update({
      where: { id: row.id },
      data: { nextAttemptAt: new Date() },
    });
    await waitFor('the swept attempt to succeed', async () => {
      const current = await stack.api.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: row.id } });
      return current.status === 'SUCCESS';
    });
    expect(stack.receiver.at(endpoint.path)).toHaveLength(1);
  });

  it('closes a claim whose worker died as FAILED with an unknown outcome and sends the next attempt', async () => {
    const community = await createCommunity(stack.api.app);
    const endpoint = await endpointFor(community.id);
    const event = await relayedEvent(community.id);
    // claimed an hour ago and never closed: the worker that claimed it is gone
    await stack.api.prisma.webhookDelivery.create({
      data: {
        communityId: community.id,
        endpointId: endpoint.id,
        messageId: event.messageId,
        eventType: 'tweet.created',
        attempt: 1,
        nextAttemptAt: new Date(Date.now() - 3_600_000),
        startedAt: new Date(Date.now() - 3_600_000),
        requestId: 'req-dead-worker',
      },
    });

    const rows = await waitFor('the retry to succeed', async () => {
      const all = await stack.api.prisma.webhookDelivery.findMany({
        where: { endpointId: endpoint.id },
        orderBy: { attempt: 'asc' },
      });
      return all.length === 2 && all[1].status === 'SUCCESS' && all;
    });
    expect(rows.map((r) => [r.attempt, r.status, r.error, r.requestId])).toEqual([
      [1, 'FAILED', OUTCOME_UNKNOWN, 'req-dead-worker'],
      [2, 'SUCCESS', null, 'req-dead-worker'],
    ]);
    expect(stack.receiver.at(endpoint.path)).toHaveLength(1);
  });

  it('gives each attempt in the log the body it sent and the id of the API request that raised it', async () => {
    const { community, token } = await memberWithToken(stack.api.app, { plan: 'PRO', role: 'OWNER' });
    const endpoint = await endpointFor(community.id);
    const requestId = unique('req');
    const created = await call(stack.api.app, 'POST', '/api/sdk/tweets', {
      token,
      headers: { 'x-request-id': requestId },
      body: { content: 'traced' },
    });
    expect(created.status).toBe(201);
    const tweetId = (created.body.data as { id: string }).id;

    const outbox = await stack.api.prisma.outboxEvent.findFirstOrThrow({
      where: { communityId: community.id, eventType: 'tweet.created' },
    });
    expect(outbox.requestId).toBe(requestId);
    await waitFor('the delivery', async () => {
      const row = await stack.api.prisma.webhookDelivery.findFirst({ where: { endpointId: endpoint.id } });
      return row?.status === 'SUCCESS';
    });

    const log = await call(
      stack.api.app,
      'GET',
      `/api/communities/${community.id}/webhooks/${endpoint.id}/deliveries`,
      {
        token,
      },
    );
    expect(log.status).toBe(200);
    const [item] = log.body.data.items as {
      requestId: string;
      payload: { id: string; type: string; data: { tweet: { id: string } } };
    }[];
    expect(item.requestId).toBe(requestId);
    expect(item.payload).toMatchObject({ id: outbox.messageId, type: 'tweet.created' });
    expect(item.payload.data.tweet.id).toBe(tweetId);
    expect(JSON.parse(stack.receiver.at(endpoint.path)[0].body)).toEqual(item.payload);

    // another community sees none of it
    const other = await memberWithToken(stack.api.app, { plan: 'PRO', role: 'OWNER' });
    const foreign = await call(
      stack.api.app,
      'GET',
      `/api/communities/${other.community.id}/webhooks/${endpoint.id}/deliveries`,
      { token: other.token },
    );
    expect(foreign.status).toBe(404);
  });

  it('shows the body of a test delivery in the log too', async () => {
    const { community, token } = await memberWithToken(stack.api.app, { plan: 'PRO', role: 'OWNER' });
    const endpoint = await endpointFor(community.id);
    const tested = await call(
      stack.api.app,
      'POST',
      `/api/communities/${community.id}/webhooks/${endpoint.id}/test`,
      {
        token,
        headers: { 'x-request-id': 'req-test-route' },
      },
    );
    expect(tested.status).toBe(200);
    expect(tested.body.data).toMatchObject({ eventType: 'webhook.test', requestId: 'req-test-route' });
    expect(tested.body.data.payload).toMatchObject({ type: 'webhook.test', communityId: community.id });

    const log = await call(
      stack.api.app,
      'GET',
      `/api/communities/${community.id}/webhooks/${endpoint.id}/deliveries`,
      {
        token,
      },
    );
    expect(log.body.data.items[0].payload).toEqual(tested.body.data.payload);
  });
});

describe('event body retention', () => {
  const api = useTestApp(DELIVERY_TEST_ENV);

  it('keeps a body while a delivery of it is PENDING or younger than WEBHOOK_MESSAGE_RETENTION', async () => {
    const community = await createCommunity(api.app);
    const endpoint = await createEndpoint(api, community.id, {
      url: 'http://127.0.0.1:1/never',
      events: ['tweet.created'],
      // paused: no worker touches its rows
      isActive: false,
    });
    const day = 24 * 3600_000;
    const old = new Date(Date.now() - 40 * day);
    const events = ['no-deliveries', 'old-deliveries', 'recent-delivery', 'pending-retry'];
    for (const name of events) {
      await api.prisma.outboxEvent.create({
        data: {
          communityId: community.id,
          messageId: `msg_body_${name}_${community.id}`,
          eventType: 'tweet.created',
          payload: {},
          createdAt: old,
          relayedAt: old,
        },
      });
    }
    const attempt = (name: string, n: number, status: 'SUCCESS' | 'FAILED' | 'PENDING', createdAt: Date) => ({
      communityId: community.id,
      endpointId: endpoint.id,
      messageId: `msg_body_${name}_${community.id}`,
      eventType: 'tweet.created',
      attempt: n,
      status,
      createdAt,
    });
    await api.prisma.webhookDelivery.createMany({
      data: [
        attempt('old-deliveries', 1, 'FAILED', old),
        attempt('old-deliveries', 2, 'SUCCESS', old),
        attempt('recent-delivery', 1, 'FAILED', old),
        attempt('recent-delivery', 2, 'FAILED', new Date(Date.now() - 2 * day)),
        attempt('pending-retry', 1, 'PENDING', old),
      ],
    });

    await outboxRetentionOf(api).prune(7 * day, 30 * day);

    const left = await api.prisma.outboxEvent.findMany({ where: { communityId: community.id } });
    expect(left.map((r) => r.messageId.split('_')[2]).sort()).toEqual(['pending-retry', 'recent-delivery']);
  });
});
