import type { SubscribableEvent } from '../../src/modules/events/event-catalog';
import { OutboxService } from '../../src/modules/events/outbox.service';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { syntheticData } from '../utils/synthetic-event';
import { waitFor } from '../utils/worker';
import { useDeliveryStack } from '../utils/delivery-stack';

const hooks = (communityId: string) => `/api/communities/${communityId}/webhooks`;

interface MessageItem {
  messageId: string;
  eventType: string;
  status: string;
  attemptCount: number;
  test: boolean;
  attempts: { attempt: number; status: string; messageId: string }[];
}

/** The log by message (docs/api.md#webhooks, "Messages"): one item per event with its attempts under it, and its filters. */
describe('webhook messages: the delivery log by message', () => {
  const stack = useDeliveryStack();

  async function raise(communityId: string, type: SubscribableEvent = 'tweet.created') {
    const event = await stack.api.prisma.$transaction((tx) =>
      stack.api.app
        .get(OutboxService)
        .record(tx, communityId, type, syntheticData({ tweet: { id: unique('t') } })),
    );
    return event.id;
  }

  it('lists each message once, newest first, with every attempt under it, and filters them', async () => {
    const { community, token } = await memberWithToken(stack.api.app, { plan: 'PRO' });
    const path = `/${unique('hook')}`;
    let failOnce = '';
    const failed = new Set<string>();
    stack.receiver.respond(path, (request) => {
      const id = request.headers['webhook-id'];
      if (id !== failOnce || failed.has(id)) return { status: 200 };
      failed.add(id);
      return { status: 500 };
    });
    const created = await call(stack.api.app, 'POST', hooks(community.id), {
      token,
      body: { url: stack.receiver.url + path, events: ['tweet.created', 'member.joined'] },
    });
    const endpointId = created.body.data.id as string;
    const url = `${hooks(community.id)}/${endpointId}/messages`;

    const first = await raise(community.id);
    await waitFor('the first delivered', () => stack.receiver.at(path).length === 1);
    const beforeSecond = new Date().toISOString();
    failOnce = await raise(community.id);
    await waitFor('the second delivered on its retry', async () =>
      stack.api.prisma.webhookDelivery.count({
        where: { endpointId, messageId: failOnce, status: 'SUCCESS' },
      }),
    );
    const joined = await raise(community.id, 'member.joined');
    await waitFor('the third delivered', () => stack.receiver.at(path).length === 4);

    const all = await call(stack.api.app, 'GET', url, { token });
    expect(all.status).toBe(200);
    const items = all.body.data.items as MessageItem[];
    expect(items.map((m) => m.messageId)).toEqual([joined, failOnce, first]);
    expect(items[1]).toMatchObject({
      status: 'SUCCESS',
      attemptCount: 2,
      test: false,
      eventType: 'tweet.created',
    });
    expect(items[1].attempts.map((a) => [a.attempt, a.status])).toEqual([
      [2, 'SUCCESS'],
      [1, 'FAILED'],
    ]);
    expect(all.body.data).toMatchObject({ limit: 50, offset: 0, hasMore: false });

    const byId = await call(stack.api.app, 'GET', `${url}?messageId=${failOnce}`, { token });
    expect((byId.body.data.items as MessageItem[]).map((m) => m.messageId)).toEqual([failOnce]);
    const byType = await call(stack.api.app, 'GET', `${url}?eventType=member.joined`, { token });
    expect((byType.body.data.items as MessageItem[]).map((m) => m.messageId)).toEqual([joined]);
    // the latest attempt's state: the message that failed once has succeeded since
    const stillFailing = await call(stack.api.app, 'GET', `${url}?status=FAILED`, { token });
    expect(stillFailing.body.data.items).toEqual([]);
    const since = await call(stack.api.app, 'GET', `${url}?since=${encodeURIComponent(beforeSecond)}`, {
      token,
    });
    expect((since.body.data.items as MessageItem[]).map((m) => m.messageId)).toEqual([joined, failOnce]);
    const paged = await call(stack.api.app, 'GET', `${url}?limit=1&offset=1`, { token });
    expect(paged.body.data).toMatchObject({ limit: 1, offset: 1, hasMore: true });
    expect((paged.body.data.items as MessageItem[]).map((m) => m.messageId)).toEqual([failOnce]);
  });

  it("answers 404 for another community's endpoint and 400 for a bad filter", async () => {
    const mine = await memberWithToken(stack.api.app, { plan: 'PRO' });
    const theirs = await memberWithToken(stack.api.app, { plan: 'PRO' });
    const created = await call(stack.api.app, 'POST', hooks(theirs.community.id), {
      token: theirs.token,
      body: { url: `${stack.receiver.url}/${unique('hook')}`, events: ['tweet.created'] },
    });
    const foreign = await call(
      stack.api.app,
      'GET',
      `${hooks(mine.community.id)}/${created.body.data.id}/messages`,
      {
        token: mine.token,
      },
    );
    expect(foreign.status).toBe(404);

    const own = await call(stack.api.app, 'POST', hooks(mine.community.id), {
      token: mine.token,
      body: { url: `${stack.receiver.url}/${unique('hook')}`, events: ['tweet.created'] },
    });
    const url = `${hooks(mine.community.id)}/${own.body.data.id}/messages`;
    const empty = await call(stack.api.app, 'GET', url, { token: mine.token });
    expect(empty.body.data).toEqual({ items: [], limit: 50, offset: 0, hasMore: false });
    for (const [query, field] of [
      ['since=yesterday', 'since'],
      ['eventType=tweet.exploded', 'eventType'],
      ['status=LOST', 'status'],
      ['limit=0', 'limit'],
      ['since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z', 'since'],
    ]) {
      const res = await call(stack.api.app, 'GET', `${url}?${query}`, { token: mine.token });
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
      expect(JSON.stringify(res.body)).toContain(field);
    }
  });
});
