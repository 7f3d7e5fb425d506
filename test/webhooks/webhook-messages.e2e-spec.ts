import { Prisma } from '../../src/generated/prisma/client';
import type { DeliveryStatus } from '../../src/generated/prisma/enums';
import type { SubscribableEvent } from '../../src/modules/events/event-catalog';
import { messagesStatement } from '../../src/modules/webhooks/delivery-log.store';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { raiseEvent } from '../utils/synthetic-event';
import { waitFor } from '../utils/worker';
import { useDeliveryStack } from '../utils/delivery-stack';

const hooks = (communityId: string) => `/api/communities/${communityId}/webhooks`;

interface MessageItem {
  messageId: string;
  eventType: string;
  status: string;
  attemptCount: number;
  test: boolean;
  attempts: { attempt: number; status: string; messageId: string; payload: { id: string } | null }[];
}

/** The log by message (docs/api.md#webhooks, "Messages"): one item per event with its attempts under it, and its filters. */
describe('webhook messages: the delivery log by message', () => {
  const stack = useDeliveryStack();

  const raise = async (communityId: string, type?: SubscribableEvent) =>
    (await raiseEvent(stack.api, communityId, type)).id;

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
    // the event body is read once per message and shown on each of its attempts
    expect(items[1].attempts.map((a) => a.payload?.id)).toEqual([failOnce, failOnce]);
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

  /**
   * Writes attempts straight into the log (closed ones: the worker has nothing to send), each
   * `secondsAgo` before `reference` (now, unless a test needs its times again to query them).
   */
  async function logAttempts(
    communityId: string,
    endpointId: string,
    rows: {
      messageId: string;
      eventType: string;
      attempt: number;
      status: DeliveryStatus;
      secondsAgo: number;
    }[],
    reference = Date.now(),
  ) {
    await stack.api.prisma.webhookDelivery.createMany({
      data: rows.map((row) => ({
        communityId,
        endpointId,
        messageId: row.messageId,
        eventType: row.eventType,
        attempt: row.attempt,
        status: row.status,
        responseStatus: row.status === 'SUCCESS' ? 200 : 500,
        createdAt: new Date(reference - row.secondsAgo * 1000),
      })),
    });
  }

  it('finds a type rare in a long log through its own index, and combines it with the other filters', async () => {
    const { community, token } = await memberWithToken(stack.api.app, { plan: 'PRO' });
    const other = await memberWithToken(stack.api.app, { plan: 'PRO' });
    const endpointOf = async (communityId: string, bearer: string) => {
      const created = await call(stack.api.app, 'POST', hooks(communityId), {
        token: bearer,
        body: { url: `${stack.receiver.url}/${unique('hook')}`, events: ['tweet.created', 'member.joined'] },
      });
      return created.body.data.id as string;
    };
    const endpointId = await endpointOf(community.id, token);
    const theirs = await endpointOf(other.community.id, other.token);
    const id = (n: number) => `msg_${unique('rare')}_${n}`;
    // 2,000 tweet.created messages, and three member.joined among the oldest: the one at 1,900 s failed
    // once and succeeded 5 s later, the one at 1,950 s is still FAILED
    const joined = [id(1), id(2), id(3)];
    // the times the window below asks for, however long the test takes to get there
    const reference = Date.now();
    await logAttempts(
      community.id,
      endpointId,
      [
        ...Array.from({ length: 2000 }, (_, n) => ({
          messageId: id(100 + n),
          eventType: 'tweet.created',
          attempt: 1,
          status: 'SUCCESS' as const,
          secondsAgo: n,
        })),
        { messageId: joined[0], eventType: 'member.joined', attempt: 1, status: 'FAILED', secondsAgo: 1900 },
        { messageId: joined[0], eventType: 'member.joined', attempt: 2, status: 'SUCCESS', secondsAgo: 1895 },
        { messageId: joined[1], eventType: 'member.joined', attempt: 1, status: 'FAILED', secondsAgo: 1950 },
        { messageId: joined[2], eventType: 'member.joined', attempt: 1, status: 'SUCCESS', secondsAgo: 1990 },
      ],
      reference,
    );
    // the same type in another community's endpoint, newer than all of ours
    await logAttempts(other.community.id, theirs, [
      { messageId: id(4), eventType: 'member.joined', attempt: 1, status: 'FAILED', secondsAgo: 0 },
    ]);
    await stack.api.prisma.$executeRawUnsafe('ANALYZE webhook_deliveries');

    const url = `${hooks(community.id)}/${endpointId}/messages`;
    const ids = async (query: string) => {
      const res = await call(stack.api.app, 'GET', `${url}?${query}`, { token });
      expect({ query, status: res.status }).toEqual({ query, status: 200 });
      return (res.body.data.items as MessageItem[]).map((m) => [m.messageId, m.status, m.attemptCount]);
    };
    expect(await ids('eventType=member.joined')).toEqual([
      [joined[0], 'SUCCESS', 2],
      [joined[1], 'FAILED', 1],
      [joined[2], 'SUCCESS', 1],
    ]);
    expect(await ids('eventType=member.joined&status=FAILED')).toEqual([[joined[1], 'FAILED', 1]]);
    // status applies to the latest attempt: the retried message's first attempt FAILED, yet it is not listed
    expect(await ids('eventType=member.joined&status=SUCCESS')).toEqual([
      [joined[0], 'SUCCESS', 2],
      [joined[2], 'SUCCESS', 1],
    ]);
    const at = (secondsAgo: number) =>
      encodeURIComponent(new Date(reference - secondsAgo * 1000).toISOString());
    expect(await ids(`eventType=member.joined&since=${at(1960)}&until=${at(1920)}`)).toEqual([
      [joined[1], 'FAILED', 1],
    ]);
    expect(await ids(`eventType=member.joined&messageId=${joined[2]}`)).toEqual([[joined[2], 'SUCCESS', 1]]);
    expect(await ids(`eventType=tweet.created&messageId=${joined[2]}`)).toEqual([]);
    expect(await ids('eventType=member.joined&limit=2&offset=1')).toEqual([
      [joined[1], 'FAILED', 1],
      [joined[2], 'SUCCESS', 1],
    ]);
    expect(await ids('eventType=webhook.test')).toEqual([]);
    // their endpoint through our community: not found, filter or not
    const foreign = await call(
      stack.api.app,
      'GET',
      `${hooks(community.id)}/${theirs}/messages?eventType=member.joined`,
      { token },
    );
    expect(foreign.status).toBe(404);

    // the rare type is read from its index, not by walking the endpoint's log newest first
    const plan = await stack.api.prisma.$queryRaw<unknown[]>(
      Prisma.sql`EXPLAIN (FORMAT JSON) ${messagesStatement(community.id, endpointId, {
        limit: 50,
        offset: 0,
        eventType: 'member.joined',
      })}`,
    );
    expect(JSON.stringify(plan)).toContain('webhook_deliveries_endpoint_id_event_type_created_at_id_idx');
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
