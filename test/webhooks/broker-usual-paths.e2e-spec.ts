import { natsTarget, rabbitTarget, useBrokerStack } from '../utils/brokers';
import { memberWithToken } from '../utils/factories';
import { call } from '../utils/http';
import { raiseEvent, raiseInOrder } from '../utils/synthetic-event';
import { waitFor } from '../utils/worker';

const hooks = (communityId: string) => `/api/communities/${communityId}/webhooks`;

interface Attempt {
  id: string;
  messageId: string;
  attempt: number;
  status: string;
  responseBody: string | null;
  error: string | null;
}

/**
 * Resend, recover, the rate limit and the content filter reach a broker destination through the same paths as an http endpoint
 * (docs/api.md#broker-destinations), and a PATCH of its exchange reaches the workers' connections.
 */
describe('webhook broker destinations: resend, recover, a changed exchange, the rate limit, the filter', () => {
  const stack = useBrokerStack();

  it('a PATCHed exchange is used from the next attempt; recover and resend publish again', async () => {
    const target = await rabbitTarget();
    stack.cleanups.push(target.remove);
    const member = await memberWithToken(stack.api.app, { plan: 'ENTERPRISE', role: 'OWNER' });
    const created = await call(stack.api.app, 'POST', hooks(member.community.id), {
      token: member.token,
      body: {
        type: 'rabbitmq',
        url: 'amqp://guest:guest@127.0.0.1:5672',
        exchange: `${target.exchange}-missing`,
        routingKey: target.routingKey,
        events: ['tweet.created'],
        // two attempts, both failing, leave the message FAILED for recover (three would auto-disable here)
        retrySchedule: ['1s'],
      },
    });
    expect(created.status).toBe(201);
    const path = `${hooks(member.community.id)}/${created.body.data.id}`;
    const log = async () =>
      (await call(stack.api.app, 'GET', `${path}/deliveries?limit=100`, { token: member.token })).body.data
        .items as Attempt[];
    const since = new Date(Date.now() - 60_000).toISOString();
    const [messageId] = await raiseInOrder(stack.api, member.community.id, 1);
    const failed = await waitFor('both attempts failing', async () => {
      const attempts = (await log()).filter((a) => a.status === 'FAILED');
      return attempts.length === 2 && attempts;
    });
    for (const a of failed) expect(a.error).toMatch(/^exchange not found/);

    const patched = await call(stack.api.app, 'PATCH', path, {
      token: member.token,
      body: { exchange: target.exchange },
    });
    expect(patched.status).toBe(200);
    const recovered = await call(stack.api.app, 'POST', `${path}/recover`, {
      token: member.token,
      body: { since },
    });
    expect([recovered.status, recovered.body.data]).toEqual([202, expect.objectContaining({ queued: 1 })]);
    const success = await waitFor('the recovered attempt succeeding', async () =>
      (await log()).find((a) => a.status === 'SUCCESS'),
    );
    expect(success.responseBody).toContain(`exchange "${target.exchange}"`);

    const resent = await call(stack.api.app, 'POST', `${path}/deliveries/${success.id}/resend`, {
      token: member.token,
      body: {},
    });
    expect(resent.status).toBe(202);
    await waitFor(
      'the resend succeeding',
      async () => (await log()).filter((a) => a.status === 'SUCCESS').length === 2,
    );
    // the same message twice, as a resend means: consumers de-duplicate on webhook-id
    expect((await target.take()).map((m) => m.headers['webhook-id'])).toEqual([messageId, messageId]);
  });

  it('holds publishes back by the rate limit, as for http, and publishes each once', async () => {
    const target = await natsTarget();
    stack.cleanups.push(target.remove);
    const member = await memberWithToken(stack.api.app, { plan: 'ENTERPRISE', role: 'OWNER' });
    const created = await call(stack.api.app, 'POST', hooks(member.community.id), {
      token: member.token,
      body: {
        type: 'nats',
        url: 'nats://127.0.0.1:4222',
        subject: target.subject,
        events: ['tweet.created'],
        rateLimit: 1,
      },
    });
    expect(created.status).toBe(201);
    const ids = await raiseInOrder(stack.api, member.community.id, 3);
    await waitFor('all three in the stream', async () => (await target.messages()).length === 3);
    expect(new Set((await target.messages()).map((m) => m.headers['webhook-id']))).toEqual(new Set(ids));
    // at most 1 a second across every worker: the three the stream stored span more than a second, where
    // without the limit they would be published within milliseconds of each other
    const stored = (await target.messages()).map((m) => m.storedAt!.getTime());
    expect(Math.max(...stored) - Math.min(...stored)).toBeGreaterThan(1000);
  });

  it('publishes only the events its filter matches', async () => {
    const target = await natsTarget();
    stack.cleanups.push(target.remove);
    const member = await memberWithToken(stack.api.app, { plan: 'ENTERPRISE', role: 'OWNER' });
    const created = await call(stack.api.app, 'POST', hooks(member.community.id), {
      token: member.token,
      body: {
        type: 'nats',
        url: 'nats://127.0.0.1:4222',
        subject: target.subject,
        events: ['tweet.created'],
        filter: { data: { tweet: { likeCount: { $gte: 10 } } } },
        // in commit order: had the first been sent, it would be in the stream before the second
        ordering: 'fifo',
      },
    });
    expect(created.status).toBe(201);
    const quiet = await raiseEvent(stack.api, member.community.id, 'tweet.created', {
      tweet: { likeCount: 1 },
    });
    const popular = await raiseEvent(stack.api, member.community.id, 'tweet.created', {
      tweet: { likeCount: 12 },
    });
    await waitFor('the matching event in the stream', async () => (await target.messages()).length > 0);
    const published = (await target.messages()).map((m) => m.headers['webhook-id']);
    expect(published).toEqual([popular.id]);
    expect(published).not.toContain(quiet.id);
  });
});
