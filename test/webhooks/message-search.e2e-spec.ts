import { Prisma } from '../../src/generated/prisma/client';
import { encodeCursor } from '../../src/common/pagination/cursor';
import { newMessageId } from '../../src/modules/events/event-body';
import { communityMessagesStatement } from '../../src/modules/webhooks/community-messages.store';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { waitFor } from '../utils/worker';
import { useDeliveryStack } from '../utils/delivery-stack';

const hooks = (communityId: string) => `/api/communities/${communityId}/webhooks`;

interface Item {
  messageId: string;
  eventType: string;
  subject: string | null;
  createdAt: string;
  test: boolean;
  endpoints: { endpointId: string; status: string; attempts: number; lastResponseStatus: number | null }[];
}

/** The community's messages and the search by subject (docs/api.md#community-wide-messages). */
describe('webhook messages: across endpoints, by subject and by answer', () => {
  const stack = useDeliveryStack();

  async function endpoint(communityId: string, token: string, url: string, events: string[]) {
    const created = await call(stack.api.app, 'POST', hooks(communityId), { token, body: { url, events } });
    expect(created.status).toBe(201);
    return created.body.data.id as string;
  }

  it("finds a subject's message on every endpoint it went to, and filters by state, code and class", async () => {
    const { community, token } = await memberWithToken(stack.api.app, { plan: 'PRO' });
    const ok = `/${unique('ok')}`;
    const picky = `/${unique('picky')}`;
    // the picky receiver refuses the one tweet it dislikes, every time (three attempts, then no retry is left)
    stack.receiver.respond(picky, (request) => ({ status: request.body.includes('unlucky') ? 503 : 200 }));
    const a = await endpoint(community.id, token, stack.receiver.url + ok, [
      'tweet.created',
      'tweet.updated',
      'comment.created',
    ]);
    const b = await endpoint(community.id, token, stack.receiver.url + picky, ['tweet.created']);
    // nothing listens there: a refused connection, no HTTP answer
    const c = await endpoint(community.id, token, 'http://127.0.0.1:1/nobody', ['comment.created']);
    const send = async (method: 'POST' | 'PATCH', url: string, body: object) => {
      const res = await call(stack.api.app, method, url, { token, body });
      expect(res.status).toBeLessThan(300);
      return res.body.data as { id: string };
    };
    const attempts = (endpointId: string, status: 'SUCCESS' | 'FAILED') =>
      stack.api.prisma.webhookDelivery.count({ where: { endpointId, status } });

    const hello = await send('POST', '/api/sdk/tweets', { content: 'hello' });
    const comment = await send('POST', `/api/sdk/tweets/${hello.id}/comments`, { content: 'welcome' });
    await waitFor('the first tweet at both, the comment at a and three refusals at c', async () => {
      return (
        (await attempts(a, 'SUCCESS')) === 2 &&
        (await attempts(b, 'SUCCESS')) === 1 &&
        (await attempts(c, 'FAILED')) === 3
      );
    });
    const unlucky = await send('POST', '/api/sdk/tweets', { content: 'unlucky' });
    await waitFor('the unlucky tweet at a, and refused three times by b', async () => {
      return (await attempts(a, 'SUCCESS')) === 3 && (await attempts(b, 'FAILED')) === 3;
    });
    await send('PATCH', `/api/sdk/tweets/${hello.id}`, { content: 'hello again' });
    await waitFor('the edit at a', async () => (await attempts(a, 'SUCCESS')) === 4);

    const list = async (query: string, url = `${hooks(community.id)}/messages`) => {
      const res = await call(stack.api.app, 'GET', `${url}?${query}`, { token });
      expect({ query, status: res.status }).toEqual({ query, status: 200 });
      return res.body.data.items as Item[];
    };
    const brief = (items: Item[]) =>
      items.map((m) => [
        m.eventType,
        m.subject,
        m.endpoints.map((e) => [e.endpointId, e.status, e.attempts, e.lastResponseStatus]),
      ]);
    // each message lists its endpoints in the order of their ids
    const byId = <T extends [string, ...unknown[]]>(rows: T[]) =>
      [...rows].sort((x, y) => (x[0] < y[0] ? -1 : 1));

    // by subject: the tweet's two messages, newest first, each with its state at every endpoint it went to
    expect(brief(await list(`subject=${hello.id}`))).toEqual([
      ['tweet.updated', hello.id, [[a, 'SUCCESS', 1, 200]]],
      [
        'tweet.created',
        hello.id,
        byId([
          [a, 'SUCCESS', 1, 200],
          [b, 'SUCCESS', 1, 200],
        ]),
      ],
    ]);
    expect(brief(await list(`subject=${unlucky.id}`))).toEqual([
      [
        'tweet.created',
        unlucky.id,
        byId([
          [a, 'SUCCESS', 1, 200],
          [b, 'FAILED', 3, 503],
        ]),
      ],
    ]);
    expect(brief(await list(`subject=${comment.id}`))).toEqual([
      [
        'comment.created',
        comment.id,
        byId([
          [a, 'SUCCESS', 1, 200],
          [c, 'FAILED', 3, null],
        ]),
      ],
    ]);
    const all = await list('');
    expect(all.map((m) => m.subject)).toEqual([hello.id, unlucky.id, comment.id, hello.id]);
    // createdAt is when the event was raised, newest first
    const times = all.map((m) => Date.parse(m.createdAt));
    expect([...times].sort((x, y) => y - x)).toEqual(times);

    // filters on an endpoint's state choose the messages and the endpoints each lists
    const unluckyAtB = [['tweet.created', unlucky.id, [[b, 'FAILED', 3, 503]]]];
    expect(brief(await list('responseStatus=503'))).toEqual(unluckyAtB);
    expect(brief(await list('responseStatus=5xx'))).toEqual(unluckyAtB);
    expect(brief(await list('responseStatus=5xx&status=FAILED&eventType=tweet.created'))).toEqual(unluckyAtB);
    expect(brief(await list('responseStatus=network'))).toEqual([
      ['comment.created', comment.id, [[c, 'FAILED', 3, null]]],
    ]);
    expect(await list('responseStatus=4xx')).toEqual([]);
    expect(await list('responseStatus=200&endpointId=' + c)).toEqual([]);
    expect((await list('responseStatus=2xx')).map((m) => m.endpoints.length)).toEqual([1, 1, 1, 2]);
    expect(
      (await list('status=FAILED')).map((m) => [m.subject, m.endpoints.map((e) => e.endpointId)]),
    ).toEqual([
      [unlucky.id, [b]],
      [comment.id, [c]],
    ]);
    expect((await list(`endpointId=${b}`)).map((m) => m.subject)).toEqual([unlucky.id, hello.id]);
    expect((await list('eventType=comment.created')).map((m) => m.subject)).toEqual([comment.id]);
    const raised = Date.parse(all[1].createdAt);
    const at = (ms: number) => encodeURIComponent(new Date(ms).toISOString());
    expect((await list(`since=${at(raised)}&until=${at(raised + 1)}`)).map((m) => m.subject)).toEqual([
      unlucky.id,
    ]);

    // the per-endpoint view takes subject and responseStatus too
    expect((await list(`subject=${hello.id}`, `${hooks(community.id)}/${a}/messages`)).length).toBe(2);
    const atB = (query: string) => list(query, `${hooks(community.id)}/${b}/messages`);
    expect((await atB('responseStatus=503')).map((m) => [m.messageId, m.subject])).toEqual([
      [all[1].messageId, unlucky.id],
    ]);
    expect(await atB(`responseStatus=5xx&subject=${hello.id}`)).toEqual([]);
    expect((await atB(`subject=${hello.id}`)).map((m) => m.eventType)).toEqual(['tweet.created']);
  });

  /** Attempt 1 of each message at each endpoint, written into the log as the relay would (closed, nothing to send). */
  async function logMessages(
    communityId: string,
    endpointIds: string[],
    count: number,
    subject = unique('s'),
  ) {
    const messageIds = Array.from({ length: count }, () => newMessageId());
    await stack.api.prisma.webhookDelivery.createMany({
      data: messageIds.flatMap((messageId) =>
        endpointIds.map((endpointId) => ({
          communityId,
          endpointId,
          messageId,
          eventType: 'tweet.created',
          attempt: 1,
          status: 'SUCCESS' as const,
          responseStatus: 200,
          subject,
        })),
      ),
    });
    return messageIds;
  }

  it('pages by cursor without a gap or a repeat while new messages arrive', async () => {
    const { community, token } = await memberWithToken(stack.api.app, { plan: 'PRO' });
    const url = `http://127.0.0.1:1/${unique('never')}`;
    const first = await endpoint(community.id, token, url, ['tweet.created']);
    const second = await endpoint(community.id, token, url, ['tweet.created']);
    // every message on both endpoints: a page counts messages, not attempts
    const existing = await logMessages(community.id, [first, second], 7);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `limit=3&cursor=${encodeURIComponent(cursor)}` : 'limit=3';
      const res = await call(stack.api.app, 'GET', `${hooks(community.id)}/messages?${query}`, { token });
      expect(res.status).toBe(200);
      expect(res.body.data.limit).toBe(3);
      const items = res.body.data.items as Item[];
      for (const item of items) expect(item.endpoints).toHaveLength(2);
      seen.push(...items.map((m) => m.messageId));
      cursor = res.body.data.nextCursor as string | null;
      // newer messages arrive between pages
      await logMessages(community.id, [first, second], 2);
    } while (cursor);
    expect(seen).toEqual([...existing].reverse());
  });

  it("keeps each community's messages to itself, and refuses what it cannot read", async () => {
    const mine = await memberWithToken(stack.api.app, { plan: 'PRO' });
    const theirs = await memberWithToken(stack.api.app, { plan: 'PRO' });
    const url = `http://127.0.0.1:1/${unique('never')}`;
    const myEndpoint = await endpoint(mine.community.id, mine.token, url, ['tweet.created']);
    const theirEndpoint = await endpoint(theirs.community.id, theirs.token, url, ['tweet.created']);
    const subject = unique('shared');
    const [myMessage] = await logMessages(mine.community.id, [myEndpoint], 1, subject);
    await logMessages(theirs.community.id, [theirEndpoint], 3, subject);

    const get = (communityId: string, query: string, token = mine.token) =>
      call(stack.api.app, 'GET', `${hooks(communityId)}/messages?${query}`, { token });
    const ids = (res: { body: { data: { items: Item[] } } }) => res.body.data.items.map((m) => m.messageId);
    expect(ids(await get(mine.community.id, `subject=${subject}`))).toEqual([myMessage]);
    expect(ids(await get(mine.community.id, `endpointId=${theirEndpoint}`))).toEqual([]);
    expect((await get(theirs.community.id, `subject=${subject}`)).status).toBe(403);
    // a cursor holds only a position: another community's cursor shows this community's messages before it
    const foreignCursor = (await get(theirs.community.id, 'limit=1', theirs.token)).body.data
      .nextCursor as string;
    expect(ids(await get(mine.community.id, `cursor=${encodeURIComponent(foreignCursor)}`))).toEqual([
      myMessage,
    ]);
    // WEBHOOKS_MANAGE, as for the per-endpoint log
    const member = await memberWithToken(stack.api.app, { communityId: mine.community.id, role: 'MEMBER' });
    expect((await get(mine.community.id, '', member.token)).status).toBe(403);

    for (const [query, field] of [
      ['cursor=garbage', 'cursor'],
      [`cursor=${encodeCursor(['not-a-message'])}`, 'cursor'],
      [`cursor=${encodeCursor(['msg_01', 'extra'])}`, 'cursor'],
      ['responseStatus=6xx', 'responseStatus'],
      ['responseStatus=1xx', 'responseStatus'],
      ['responseStatus=600', 'responseStatus'],
      ['responseStatus=timeout', 'responseStatus'],
      ['limit=101', 'limit'],
      ['limit=0', 'limit'],
      ['status=LOST', 'status'],
      ['endpointId=nope', 'endpointId'],
      ['eventType=tweet.exploded', 'eventType'],
      ['since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z', 'since'],
    ]) {
      const res = await get(mine.community.id, query);
      expect({ query, status: res.status, code: res.body.code }).toEqual({
        query,
        status: 400,
        code: 'VALIDATION_ERROR',
      });
      expect(JSON.stringify(res.body.details)).toContain(field);
    }
    const perEndpoint = await call(
      stack.api.app,
      'GET',
      `${hooks(mine.community.id)}/${myEndpoint}/messages?responseStatus=5XX`,
      { token: mine.token },
    );
    expect(perEndpoint.status).toBe(400);
  });

  it("reads a subject's messages from the subject index, not by walking the community's log", async () => {
    const { community, token } = await memberWithToken(stack.api.app, { plan: 'PRO' });
    const hook = await endpoint(community.id, token, `http://127.0.0.1:1/${unique('never')}`, [
      'tweet.created',
    ]);
    await logMessages(community.id, [hook], 3000);
    const subject = unique('rare');
    await logMessages(community.id, [hook], 2, subject);
    await stack.api.prisma.$executeRawUnsafe('ANALYZE webhook_deliveries');
    const plan = await stack.api.prisma.$queryRaw<unknown[]>(
      Prisma.sql`EXPLAIN (FORMAT JSON) ${communityMessagesStatement(community.id, { limit: 50, subject })}`,
    );
    expect(JSON.stringify(plan)).toContain('webhook_deliveries_community_id_subject_message_id_idx');
  });
});
