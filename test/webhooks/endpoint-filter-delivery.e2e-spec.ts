import type { SubscribableEvent } from '../../src/modules/events/event-catalog';
import { OutboxService } from '../../src/modules/events/outbox.service';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { syntheticData } from '../utils/synthetic-event';
import { waitFor } from '../utils/worker';
import { useDeliveryStack } from '../utils/delivery-stack';

const hooks = (communityId: string) => `/api/communities/${communityId}/webhooks`;
const HOUR_MS = 3600_000;
type Member = { community: { id: string }; token: string };

/**
 * What an endpoint's filter does to its deliveries (docs/api.md#content-filters): an event it does
 * not match is not attempted (no row in the log), not sent and not missed; a matching one goes as
 * usual, FIFO order included; a new filter applies to the next events; the test route ignores it.
 */
describe('webhook endpoint filter: deliveries', () => {
  const stack = useDeliveryStack();

  async function addEndpoint(member: Member, extra: object, events: string[] = ['tweet.created']) {
    const path = `/${unique('hook')}`;
    const created = await call(stack.api.app, 'POST', hooks(member.community.id), {
      token: member.token,
      body: { url: stack.receiver.url + path, events, ...extra },
    });
    expect(created.status).toBe(201);
    return { id: created.body.data.id as string, path };
  }

  function patch(member: Member, id: string, body: object) {
    return call(stack.api.app, 'PATCH', `${hooks(member.community.id)}/${id}`, { token: member.token, body });
  }

  /** One event per `data`, each in its own transaction: their commit order is the order returned. */
  async function raise(
    communityId: string,
    datas: Record<string, unknown>[],
    type: SubscribableEvent = 'tweet.created',
  ) {
    const ids: string[] = [];
    for (const data of datas) {
      const event = await stack.api.prisma.$transaction((tx) =>
        stack.api.app.get(OutboxService).record(tx, communityId, type, syntheticData(data)),
      );
      ids.push(event.id);
    }
    return ids;
  }

  const tweet = (likeCount: number, extra: object = {}) => ({
    tweet: { id: unique('t'), likeCount, ...extra },
  });
  const received = (path: string) => stack.receiver.at(path).map((r) => r.headers['webhook-id']);
  const attemptedMessages = async (endpointId: string) =>
    (
      await stack.api.prisma.webhookDelivery.findMany({
        where: { endpointId },
        // the queue's order: a relay batch writes its attempts in one statement, so they share created_at
        orderBy: { queuePosition: 'asc' },
        select: { messageId: true },
      })
    ).map((r) => r.messageId);
  const relayed = (messageIds: string[]) =>
    waitFor(`${messageIds.length} events relayed`, async () => {
      const count = await stack.api.prisma.outboxEvent.count({
        where: { messageId: { in: messageIds }, relayedAt: { not: null } },
      });
      return count === messageIds.length;
    });

  it('writes no attempt for an event the filter does not match: not sent, not logged, not counted', async () => {
    const member = await memberWithToken(stack.api.app, { plan: 'PRO', role: 'OWNER' });
    const popular = await addEndpoint(member, { filter: { data: { tweet: { likeCount: { $gte: 10 } } } } });
    const nothing = await addEndpoint(member, { filter: { type: 'tweet.deleted' } });
    const everything = await addEndpoint(member, {});
    const [low, high] = await raise(member.community.id, [tweet(3), tweet(12)]);

    await waitFor('the matching event at the filtered endpoint', () => received(popular.path).length === 1);
    await waitFor('both events at the plain endpoint', () => received(everything.path).length === 2);
    await relayed([low, high]);
    expect(received(popular.path)).toEqual([high]);
    expect(await attemptedMessages(popular.id)).toEqual([high]);
    // a filter that matches nothing: no row in the table at all
    expect(await stack.api.prisma.webhookDelivery.count({ where: { endpointId: nothing.id } })).toBe(0);
    expect(received(nothing.path)).toEqual([]);
    expect(await attemptedMessages(everything.id)).toEqual([low, high]);

    // the log's total and the figures count the matching event only
    const log = await call(stack.api.app, 'GET', `${hooks(member.community.id)}/${popular.id}/deliveries`, {
      token: member.token,
    });
    expect(log.body.data.total).toBe(1);
    await waitFor('the figures', async () => {
      const stats = await call(stack.api.app, 'GET', `${hooks(member.community.id)}/${popular.id}/stats`, {
        token: member.token,
      });
      return stats.body.data.totals.attempts === 1;
    });
    const empty = await call(stack.api.app, 'GET', `${hooks(member.community.id)}/${nothing.id}/deliveries`, {
      token: member.token,
    });
    expect(empty.body.data.total).toBe(0);
  });

  it('matches the subject of the body: the events about one resource', async () => {
    const member = await memberWithToken(stack.api.app, { plan: 'PRO', role: 'OWNER' });
    const watched = tweet(1);
    const endpoint = await addEndpoint(member, { filter: { subject: watched.tweet.id } });
    const [other, about] = await raise(member.community.id, [tweet(1), watched]);
    await waitFor('the event about the watched tweet', () => received(endpoint.path).length === 1);
    await relayed([other, about]);
    expect(received(endpoint.path)).toEqual([about]);
    expect(await attemptedMessages(endpoint.id)).toEqual([about]);
  });

  it('applies a changed filter to the next event, and null sends everything again', async () => {
    const member = await memberWithToken(stack.api.app, { plan: 'PRO', role: 'OWNER' });
    const endpoint = await addEndpoint(member, { filter: { data: { tweet: { likeCount: 1 } } } });
    const [one] = await raise(member.community.id, [tweet(1)]);
    await waitFor('the first event', () => received(endpoint.path).length === 1);

    expect((await patch(member, endpoint.id, { filter: { data: { tweet: { likeCount: 2 } } } })).status).toBe(
      200,
    );
    const [oneAgain, two] = await raise(member.community.id, [tweet(1), tweet(2)]);
    await waitFor('the event the new filter matches', () => received(endpoint.path).length === 2);
    await relayed([oneAgain, two]);

    expect((await patch(member, endpoint.id, { filter: null })).status).toBe(200);
    const [three] = await raise(member.community.id, [tweet(3)]);
    await waitFor('the unfiltered event', () => received(endpoint.path).length === 3);
    expect(received(endpoint.path)).toEqual([one, two, three]);
    expect(await attemptedMessages(endpoint.id)).toEqual([one, two, three]);
  });

  it('keeps commit order among the matching events of a FIFO endpoint', async () => {
    const member = await memberWithToken(stack.api.app, { plan: 'PRO', role: 'OWNER' });
    const fifo = await addEndpoint(member, { ordering: 'fifo', filter: { data: { tweet: { keep: true } } } });
    const datas = Array.from({ length: 30 }, (_, i) => tweet(i, { keep: i % 3 !== 1 }));
    const ids = await raise(member.community.id, datas);
    const kept = ids.filter((_, i) => i % 3 !== 1);

    await waitFor('every matching event', () => received(fifo.path).length === kept.length, 20_000);
    await relayed(ids);
    expect(received(fifo.path)).toEqual(kept);
    expect(await attemptedMessages(fifo.id)).toEqual(kept);
  });

  it('records as missed, for recover, only the events the filter matches', async () => {
    const member = await memberWithToken(stack.api.app, { plan: 'PRO', role: 'OWNER' });
    const endpoint = await addEndpoint(member, { filter: { data: { tweet: { likeCount: { $lt: 5 } } } } });
    const since = new Date(Date.now() - HOUR_MS).toISOString();
    expect((await patch(member, endpoint.id, { isActive: false })).status).toBe(200);
    const ids = await raise(member.community.id, [tweet(1), tweet(7), tweet(2), tweet(9)]);
    await relayed(ids);
    const missed = await stack.api.prisma.webhookMissedEvent.count({ where: { endpointId: endpoint.id } });
    expect(missed).toBe(2);

    expect((await patch(member, endpoint.id, { isActive: true })).status).toBe(200);
    const recovered = await call(
      stack.api.app,
      'POST',
      `${hooks(member.community.id)}/${endpoint.id}/recover`,
      {
        token: member.token,
        body: { since, include: ['missed'] },
      },
    );
    expect(recovered.status).toBe(202);
    expect(recovered.body.data).toEqual({ queued: 2, remaining: 0, expired: 0 });
    await waitFor('the two recovered events', () => received(endpoint.path).length === 2);
    expect(received(endpoint.path)).toEqual([ids[0], ids[2]]);
  });

  it('leaves other communities alone, and the test route ignores the filter', async () => {
    const member = await memberWithToken(stack.api.app, { plan: 'PRO', role: 'OWNER' });
    const neighbour = await memberWithToken(stack.api.app, { plan: 'PRO', role: 'OWNER' });
    const filtered = await addEndpoint(member, { filter: { type: 'tweet.created' } });
    const theirs = await addEndpoint(neighbour, { filter: { data: { tweet: { likeCount: 0 } } } });
    const [neighbourEvent, neighbourOther] = await raise(neighbour.community.id, [tweet(0), tweet(1)]);
    await waitFor("the neighbour's matching event", () => received(theirs.path).length === 1);
    await relayed([neighbourEvent, neighbourOther]);
    // a filter widens nothing: another community's events never reach the endpoint, match or not
    expect(received(filtered.path)).toEqual([]);
    expect(received(theirs.path)).toEqual([neighbourEvent]);

    const probe = await call(stack.api.app, 'POST', `${hooks(neighbour.community.id)}/${theirs.id}/test`, {
      token: neighbour.token,
    });
    expect(probe.status).toBe(200);
    expect(stack.receiver.at(theirs.path).map((r) => JSON.parse(r.body).type)).toEqual([
      'tweet.created',
      'webhook.test',
    ]);
  });
});
