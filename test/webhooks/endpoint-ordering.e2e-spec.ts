import type { SubscribableEvent } from '../../src/modules/events/event-catalog';
import { FifoHeadStore } from '../../src/modules/webhooks/worker/fifo-head.store';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { raiseInOrder } from '../utils/synthetic-event';
import { Answer, ReceivedWebhook } from '../utils/webhook-receiver';
import { waitFor } from '../utils/worker';
import { useDeliveryStack } from '../utils/delivery-stack';

const hooks = (communityId: string) => `/api/communities/${communityId}/webhooks`;
/** How long the receiver takes to answer: long enough that two requests in flight would overlap. */
const RECEIVER_LATENCY_MS = 3;

/**
 * The `ordering` field of an endpoint (docs/api.md#webhooks, "Ordering"): a FIFO endpoint gets its
 * deliveries one at a time in commit order, a failing one holding back the rest, a resend after what
 * is queued; switching modes loses and repeats nothing. Two worker processes, a SIGKILL and an
 * emptied Redis: test/resilience/fifo-ordering.resilience-spec.ts.
 */
describe('webhook endpoint ordering', () => {
  const stack = useDeliveryStack();

  async function owner() {
    return memberWithToken(stack.api.app, { plan: 'PRO', role: 'OWNER' });
  }

  async function addEndpoint(
    member: { community: { id: string }; token: string },
    extra: Record<string, unknown>,
  ) {
    const path = `/${unique('hook')}`;
    const created = await call(stack.api.app, 'POST', hooks(member.community.id), {
      token: member.token,
      body: { url: stack.receiver.url + path, events: ['tweet.created'], ...extra },
    });
    expect(created.status).toBe(201);
    return { id: created.body.data.id as string, path, ordering: created.body.data.ordering as string };
  }

  function patch(member: { community: { id: string }; token: string }, id: string, body: object) {
    return call(stack.api.app, 'PATCH', `${hooks(member.community.id)}/${id}`, { token: member.token, body });
  }

  /** `count` events, each in a transaction of its own: their commit order is the order returned. */
  const raise = (communityId: string, count: number, type?: SubscribableEvent) =>
    raiseInOrder(stack.api, communityId, count, type);

  /**
   * Answers on `path` after RECEIVER_LATENCY_MS with `answer(messageId)`, and records the most
   * requests it ever had in flight at once.
   */
  function answerSlowly(
    path: string,
    answer: (messageId: string) => Answer | Promise<Answer> = () => ({ status: 200 }),
  ) {
    const seen = { inFlight: 0, maxInFlight: 0 };
    stack.receiver.respond(path, async (request: ReceivedWebhook) => {
      seen.inFlight++;
      seen.maxInFlight = Math.max(seen.maxInFlight, seen.inFlight);
      try {
        await new Promise((resolve) => setTimeout(resolve, RECEIVER_LATENCY_MS));
        return await answer(request.headers['webhook-id']);
      } finally {
        seen.inFlight--;
      }
    });
    return seen;
  }

  const messagesAt = (path: string) => stack.receiver.at(path).map((r) => r.headers['webhook-id']);

  /** Every delivery row of the endpoint closed: none PENDING. */
  function allClosed(endpointId: string) {
    return waitFor(
      `every delivery of ${endpointId} closed`,
      async () =>
        (await stack.api.prisma.webhookDelivery.count({ where: { endpointId, status: 'PENDING' } })) === 0,
      20_000,
    );
  }

  describe('the field', () => {
    it('is "unordered" unless set, and is kept, listed and switched', async () => {
      const member = await owner();
      const plain = await addEndpoint(member, {});
      expect(plain.ordering).toBe('unordered');
      const fifo = await addEndpoint(member, { ordering: 'fifo' });
      expect(fifo.ordering).toBe('fifo');
      expect(
        (await stack.api.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: fifo.id } })).ordering,
      ).toBe('fifo');

      const list = await call(stack.api.app, 'GET', hooks(member.community.id), { token: member.token });
      const listed = (list.body.data.items as { id: string; ordering: string }[]).find(
        (e) => e.id === fifo.id,
      );
      expect(listed?.ordering).toBe('fifo');

      const renamed = await patch(member, fifo.id, { description: 'in order' });
      expect(renamed.body.data.ordering).toBe('fifo');
      const switched = await patch(member, fifo.id, { ordering: 'unordered' });
      expect(switched.status).toBe(200);
      expect(switched.body.data.ordering).toBe('unordered');
    });

    it.each(['lifo', 'FIFO', null, 1, ''])('refuses %p with 400 naming the field', async (value) => {
      const member = await owner();
      const created = await call(stack.api.app, 'POST', hooks(member.community.id), {
        token: member.token,
        body: { url: `${stack.receiver.url}/${unique('hook')}`, events: ['tweet.created'], ordering: value },
      });
      expect(created.status).toBe(400);
      expect(created.body.code).toBe('VALIDATION_ERROR');
      expect(JSON.stringify(created.body.details)).toContain('ordering');
      const endpoint = await addEndpoint(member, {});
      const patched = await patch(member, endpoint.id, { ordering: value });
      expect(patched.status).toBe(400);
      expect(JSON.stringify(patched.body.details)).toContain('ordering');
    });
  });

  it('sends one at a time in commit order; a failing delivery holds back the ones behind it until it succeeds', async () => {
    const member = await owner();
    const endpoint = await addEndpoint(member, { ordering: 'fifo' });
    const failures = new Map<string, number>();
    let tenth = '';
    const seen = answerSlowly(endpoint.path, (messageId) => {
      if (messageId !== tenth) return { status: 200 };
      const failed = failures.get(messageId) ?? 0;
      failures.set(messageId, failed + 1);
      return { status: failed < 2 ? 500 : 200 };
    });
    const raised = await raise(member.community.id, 9);
    tenth = (await raise(member.community.id, 1))[0];
    raised.push(tenth, ...(await raise(member.community.id, 30)));

    await allClosed(endpoint.id);
    await waitFor('every message received', () => new Set(messagesAt(endpoint.path)).size === raised.length);
    // the 10th three times in a row (two failures, then its success), everything else once, in order
    expect(messagesAt(endpoint.path)).toEqual([...raised.slice(0, 10), tenth, tenth, ...raised.slice(10)]);
    expect(seen.maxInFlight).toBe(1);
    const rows = await stack.api.prisma.webhookDelivery.findMany({ where: { endpointId: endpoint.id } });
    expect(rows.filter((r) => r.status === 'SUCCESS')).toHaveLength(raised.length);
    expect(rows.filter((r) => r.status === 'FAILED').map((r) => r.messageId)).toEqual([tenth, tenth]);
  });

  it('lets the next go once a failing delivery has used up its retries', async () => {
    const member = await owner();
    const endpoint = await addEndpoint(member, { ordering: 'fifo' });
    let third = '';
    answerSlowly(endpoint.path, async (messageId) => {
      if (messageId !== third) return { status: 200 };
      // the streak is cleared before each failure, so that three of them exhaust the message
      // without auto-disabling the endpoint (WEBHOOK_AUTO_DISABLE_MIN_FAILURES is 3 here)
      await stack.api.prisma.webhookEndpoint.update({
        where: { id: endpoint.id },
        data: { consecutiveFailures: 0, failingSince: null },
      });
      return { status: 500 };
    });
    const raised = await raise(member.community.id, 2);
    third = (await raise(member.community.id, 1))[0];
    raised.push(third, ...(await raise(member.community.id, 5)));

    await allClosed(endpoint.id);
    await waitFor('every message received', () => new Set(messagesAt(endpoint.path)).size === raised.length);
    // WEBHOOK_RETRY_SCHEDULE has two retries: three attempts of the third, then the rest
    expect(messagesAt(endpoint.path)).toEqual([...raised.slice(0, 3), third, third, ...raised.slice(3)]);
  });

  it('sends a resend after what is queued', async () => {
    const member = await owner();
    const endpoint = await addEndpoint(member, { ordering: 'fifo' });
    const [first] = await raise(member.community.id, 1);
    answerSlowly(endpoint.path);
    await waitFor('the first event received', () => messagesAt(endpoint.path).length === 1);

    // the next delivery is held at the receiver while five more queue up behind it, then the first is resent
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding = '';
    answerSlowly(endpoint.path, async (messageId) => {
      if (messageId === holding) await held;
      return { status: 200 };
    });
    const queued = await raise(member.community.id, 1);
    holding = queued[0];
    await waitFor('the held delivery at the receiver', () => messagesAt(endpoint.path).length === 2);
    queued.push(...(await raise(member.community.id, 5)));
    const firstRow = await stack.api.prisma.webhookDelivery.findFirstOrThrow({
      where: { endpointId: endpoint.id, messageId: first },
    });
    const resent = await call(
      stack.api.app,
      'POST',
      `${hooks(member.community.id)}/${endpoint.id}/deliveries/${firstRow.id}/resend`,
      { token: member.token },
    );
    expect(resent.status).toBe(202);
    release();

    await allClosed(endpoint.id);
    await waitFor('the resend received', () => messagesAt(endpoint.path).length === 8);
    expect(messagesAt(endpoint.path)).toEqual([first, ...queued, first]);
  });

  it('switches from fifo to unordered while deliveries wait, losing and repeating none', async () => {
    const member = await owner();
    const endpoint = await addEndpoint(member, { ordering: 'fifo' });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding = '';
    answerSlowly(endpoint.path, async (messageId) => {
      if (messageId === holding) await held;
      return { status: 200 };
    });
    const raised = await raise(member.community.id, 1);
    holding = raised[0];
    await waitFor('the held delivery at the receiver', () => messagesAt(endpoint.path).length === 1);
    raised.push(...(await raise(member.community.id, 6)));
    expect((await patch(member, endpoint.id, { ordering: 'unordered' })).status).toBe(200);
    release();

    await allClosed(endpoint.id);
    await waitFor('every message received', () => messagesAt(endpoint.path).length >= raised.length);
    expect([...messagesAt(endpoint.path)].sort()).toEqual([...raised].sort());
  });

  it('switches from unordered to fifo while deliveries are in flight: the first FIFO send waits for them', async () => {
    const member = await owner();
    const endpoint = await addEndpoint(member, {});
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holding = new Set<string>();
    answerSlowly(endpoint.path, async (messageId) => {
      if (holding.has(messageId)) await held;
      return { status: 200 };
    });
    // three unordered deliveries held at the receiver at once
    const before = await raise(member.community.id, 3);
    before.forEach((id) => holding.add(id));
    await waitFor('three deliveries at the receiver', () => messagesAt(endpoint.path).length === 3);
    expect((await patch(member, endpoint.id, { ordering: 'fifo' })).status).toBe(200);
    const after = await raise(member.community.id, 5);
    await waitFor('the five relayed', async () => {
      return (await stack.api.prisma.webhookDelivery.count({ where: { endpointId: endpoint.id } })) === 8;
    });
    // nothing FIFO goes while the unordered ones are in flight
    const head = await stack.worker.context
      .get(FifoHeadStore)
      .claimFifoHead(member.community.id, endpoint.id);
    expect(head.outcome).toBe('busy');
    expect(messagesAt(endpoint.path)).toHaveLength(3);
    release();

    await allClosed(endpoint.id);
    await waitFor('every message received', () => messagesAt(endpoint.path).length === 8);
    expect(messagesAt(endpoint.path).slice(3)).toEqual(after);
  });
});
