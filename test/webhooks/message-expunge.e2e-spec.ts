import { runCli } from '../../src/cli/main';
import type { SubscribableEvent } from '../../src/modules/events/event-catalog';
import { EXPUNGED_ERROR } from '../../src/modules/webhooks/core/expunge/message-content.store';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { raiseEvent } from '../utils/synthetic-event';
import { waitFor } from '../utils/worker';
import { useDeliveryStack } from '../utils/delivery-stack';

const hooks = (communityId: string) => `/api/communities/${communityId}/webhooks`;
const content = (communityId: string, messageId: string) =>
  `${hooks(communityId)}/messages/${messageId}/content`;

/** Expunge (docs/api.md#expunge-a-messages-content): a message's content erased everywhere it is kept. */
describe("webhook messages: expunging a message's content", () => {
  const stack = useDeliveryStack();

  /** An event whose body carries `marker`, raised as the API raises one. */
  const raise = async (communityId: string, marker: string, type?: SubscribableEvent) =>
    (await raiseEvent(stack.api, communityId, type, { tweet: { id: unique('t'), content: marker } })).id;

  /** Where the marker still is, table by table, read in SQL. */
  async function whereIs(marker: string) {
    const [found] = await stack.api.prisma.$queryRaw<{ outbox: number; answers: number }[]>`
      SELECT (SELECT count(*)::int FROM outbox_events WHERE payload::text LIKE ${`%${marker}%`}) AS outbox,
             (SELECT count(*)::int FROM webhook_deliveries WHERE response_body LIKE ${`%${marker}%`}) AS answers`;
    return found;
  }

  /** An endpoint of the community whose receiver answers 200 with the event body it got (an echo). */
  async function echoingEndpoint(communityId: string, token: string) {
    const path = `/${unique('hook')}`;
    stack.receiver.respond(path, (request) => ({ status: 200, body: request.body }));
    const created = await call(stack.api.app, 'POST', hooks(communityId), {
      token,
      body: { url: stack.receiver.url + path, events: ['tweet.created'] },
    });
    expect(created.status).toBe(201);
    return { endpointId: created.body.data.id as string, path };
  }

  it('erases the body and the answers, keeps the log marked expunged, cancels what waits, refuses a resend', async () => {
    const { community, token } = await memberWithToken(stack.api.app, { plan: 'PRO' });
    const { endpointId, path } = await echoingEndpoint(community.id, token);
    const marker = unique('personal-data');
    const messageId = await raise(community.id, marker);
    await waitFor('the event delivered and its echo recorded', () => stack.receiver.at(path).length === 1);
    await waitFor('the attempt closed', async () =>
      stack.api.prisma.webhookDelivery.count({ where: { endpointId, messageId, status: 'SUCCESS' } }),
    );
    // a later attempt of the same message scheduled an hour ahead (as a retry or a resend would be)
    const waiting = await stack.api.prisma.webhookDelivery.create({
      data: {
        communityId: community.id,
        endpointId,
        messageId,
        eventType: 'tweet.created',
        attempt: 2,
        nextAttemptAt: new Date(Date.now() + 3600_000),
      },
    });
    expect(await whereIs(marker)).toEqual({ outbox: 1, answers: 1 });

    const expunged = await call(stack.api.app, 'DELETE', content(community.id, messageId), { token });
    expect(expunged.status).toBe(200);
    expect(expunged.body.data).toMatchObject({ messageId, attemptsCancelled: 1 });
    const expungedAt = expunged.body.data.expungedAt as string;
    expect(Number.isNaN(Date.parse(expungedAt))).toBe(false);

    // gone from every table that kept it
    expect(await whereIs(marker)).toEqual({ outbox: 0, answers: 0 });
    expect(await stack.api.prisma.outboxEvent.count({ where: { messageId } })).toBe(0);

    // the log keeps both attempts, marked; the waiting one closed unsent
    const log = await call(stack.api.app, 'GET', `${hooks(community.id)}/${endpointId}/deliveries`, {
      token,
    });
    const attempts = (log.body.data.items as Record<string, unknown>[]).filter(
      (item) => item.messageId === messageId,
    );
    expect(attempts).toHaveLength(2);
    for (const attempt of attempts)
      expect(attempt).toMatchObject({ expungedAt, payload: null, responseBody: null });
    expect(attempts.find((a) => a.id === waiting.id)).toMatchObject({
      status: 'FAILED',
      error: EXPUNGED_ERROR,
      nextAttemptAt: null,
    });
    const messages = await call(
      stack.api.app,
      'GET',
      `${hooks(community.id)}/${endpointId}/messages?messageId=${messageId}`,
      { token },
    );
    expect(messages.body.data.items).toEqual([expect.objectContaining({ messageId, expungedAt })]);

    // never sent again, and a second expunge answers the first time
    const deliveryId = attempts.find((a) => a.id !== waiting.id)!.id as string;
    const resend = await call(
      stack.api.app,
      'POST',
      `${hooks(community.id)}/${endpointId}/deliveries/${deliveryId}/resend`,
      { token, body: {} },
    );
    expect(resend.status).toBe(409);
    expect(resend.body.code).toBe('MESSAGE_EXPUNGED');
    const again = await call(stack.api.app, 'DELETE', content(community.id, messageId), { token });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ messageId, expungedAt, attemptsCancelled: 0 });
    expect(stack.receiver.at(path)).toHaveLength(1);
  });

  it("answers 404 for another community's message and leaves it whole, 403 to a member, 400 to a malformed id", async () => {
    const owner = await memberWithToken(stack.api.app, { plan: 'PRO' });
    const other = await memberWithToken(stack.api.app, { plan: 'PRO' });
    const { path } = await echoingEndpoint(owner.community.id, owner.token);
    const marker = unique('personal-data');
    const messageId = await raise(owner.community.id, marker);
    await waitFor('the event delivered', () => stack.receiver.at(path).length === 1);
    await waitFor('its answer recorded', async () => (await whereIs(marker)).answers === 1);

    const foreign = await call(stack.api.app, 'DELETE', content(other.community.id, messageId), {
      token: other.token,
    });
    expect(foreign.status).toBe(404);
    const member = await memberWithToken(stack.api.app, {
      communityId: owner.community.id,
      role: 'MEMBER',
    });
    const refused = await call(stack.api.app, 'DELETE', content(owner.community.id, messageId), {
      token: member.token,
    });
    expect(refused.status).toBe(403);
    expect(await whereIs(marker)).toEqual({ outbox: 1, answers: 1 });

    const malformed = await call(stack.api.app, 'DELETE', content(owner.community.id, 'not-a-message'), {
      token: owner.token,
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('VALIDATION_ERROR');
  });

  it('webhooks:expunge erases every message of the community raised before the date, and no other', async () => {
    const { community, token } = await memberWithToken(stack.api.app, { plan: 'PRO' });
    const neighbour = await memberWithToken(stack.api.app, { plan: 'PRO' });
    const mine = await echoingEndpoint(community.id, token);
    const theirs = await echoingEndpoint(neighbour.community.id, neighbour.token);
    const marker = unique('personal-data');
    const old = [await raise(community.id, marker), await raise(community.id, marker)];
    const elsewhere = await raise(neighbour.community.id, marker);
    await waitFor('the first three delivered', async () => (await whereIs(marker)).answers === 3);
    // the database's clock, which stamps the events
    const [{ cutoff }] = await stack.api.prisma.$queryRaw<
      { cutoff: Date }[]
    >`SELECT clock_timestamp() AS cutoff`;
    const recent = await raise(community.id, marker);
    await waitFor('the fourth delivered', async () => (await whereIs(marker)).answers === 4);
    expect([mine, theirs].map((e) => stack.receiver.at(e.path).length)).toEqual([3, 1]);

    const out: string[] = [];
    const code = await runCli(
      ['webhooks:expunge', '--community', community.slug, '--before', cutoff.toISOString()],
      { out: (l) => out.push(l), err: (l) => out.push(l), readStdin: async () => '', prompt: null },
    );
    expect(code).toBe(0);
    expect(out.join('\n')).toContain('2 messages');

    const kept = await stack.api.prisma.outboxEvent.findMany({
      where: { payload: { path: ['data', 'tweet', 'content'], equals: marker } },
      select: { messageId: true },
    });
    expect(kept.map((e) => e.messageId).sort()).toEqual([elsewhere, recent].sort());
    const marked = await stack.api.prisma.webhookDelivery.findMany({
      where: { messageId: { in: [...old, recent, elsewhere] }, expungedAt: { not: null } },
      select: { messageId: true },
    });
    expect(marked.map((d) => d.messageId).sort()).toEqual([...old].sort());
  });
});
