import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { OutboxService } from '../../src/modules/events/outbox.service';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { syntheticData } from '../utils/synthetic-event';
import { Responder, verifyWebhook } from '../utils/webhook-receiver';
import { waitFor } from '../utils/worker';
import { useDeliveryStack } from '../utils/delivery-stack';

const hooks = (communityId: string) => `/api/communities/${communityId}/webhooks`;
const OPERATIONAL = [
  'webhook.endpoint.failing',
  'webhook.endpoint.disabled',
  'webhook.endpoint.recovered',
  'webhook.message.exhausted',
];

interface Body {
  type: string;
  data: Record<string, unknown>;
}

/**
 * Operational events (docs/product-decisions.md#5-webhooks): raised once per occurrence through the
 * outbox, valid under their published schema, delivered to the community's subscribers but never to
 * the endpoint they are about, even when it is subscribed.
 */
describe('operational webhook events', () => {
  const stack = useDeliveryStack();

  /**
   * A community with an observer subscribed to the operational events and a subject subscribed to
   * tweet.created AND to them, answering with `answer`; one tweet.created is raised.
   */
  async function scenario(
    answer: (attempt: number) => number,
    subjectUrl: { query?: string; userinfo?: string } = {},
  ) {
    const { community, token } = await memberWithToken(stack.api.app, { plan: 'ENTERPRISE', role: 'OWNER' });
    const create = async (path: string, events: string[], query = '') => {
      const res = await call(stack.api.app, 'POST', hooks(community.id), {
        token,
        body: { url: stack.receiver.url + path + query, events },
      });
      expect(res.status).toBe(201);
      return { id: res.body.data.id as string, secret: res.body.data.secret as string, path };
    };
    const observer = await create(`/${unique('observer')}`, OPERATIONAL);
    const subject = await create(
      `/${unique('subject')}`,
      ['tweet.created', ...OPERATIONAL],
      subjectUrl.query,
    );
    if (subjectUrl.userinfo) {
      // the API refuses credentials in a URL: this is a row from before it did (its sends fail)
      const url =
        stack.receiver.url.replace('://', `://${subjectUrl.userinfo}@`) +
        subject.path +
        (subjectUrl.query ?? '');
      await stack.api.prisma.webhookEndpoint.update({ where: { id: subject.id }, data: { url } });
    }
    const tries = new Map<string, number>();
    const respond: Responder = (req) => {
      const id = req.headers['webhook-id'];
      tries.set(id, (tries.get(id) ?? 0) + 1);
      return { status: answer(tries.get(id)!) };
    };
    // the receiver knows a request by its path and query (a fragment is never sent)
    stack.receiver.respond(subject.path, respond);
    stack.receiver.respond(subject.path + (subjectUrl.query ?? '').replace(/#.*$/, ''), respond);
    await stack.api.prisma.$transaction((tx) =>
      stack.api.app
        .get(OutboxService)
        .record(tx, community.id, 'tweet.created', syntheticData({ tweet: { id: unique('t') } })),
    );
    const seen = () => stack.receiver.at(observer.path).map((r) => verifyWebhook(r, observer.secret) as Body);
    return { communityId: community.id, token, subject, seen };
  }

  type Scenario = Awaited<ReturnType<typeof scenario>>;

  /** Waits until the observer got each of `types` and nothing is left to do; the outbox's rows per type. */
  async function settled(s: Scenario, types: string[]) {
    await waitFor(`${types.join(', ')} at the observer`, () =>
      types.every((type) => s.seen().some((b) => b.type === type && b.data.endpointId === s.subject.id)),
    );
    await waitFor('the deliveries to settle', async () => {
      const pending = await stack.api.prisma.webhookDelivery.count({
        where: { communityId: s.communityId, status: 'PENDING' },
      });
      const unrelayed = await stack.api.prisma.outboxEvent.count({
        where: { communityId: s.communityId, relayedAt: null },
      });
      return pending === 0 && unrelayed === 0;
    });
    const raised = await stack.api.prisma.outboxEvent.findMany({
      where: { communityId: s.communityId, eventType: { in: OPERATIONAL } },
    });
    const count = (type: string) => raised.filter((r) => r.eventType === type).length;
    // never sent to the endpoint it is about, though it is subscribed
    const toSubject = stack.receiver
      .at(s.subject.path)
      .map((r) => (JSON.parse(r.body) as Body).type)
      .filter((type) => OPERATIONAL.includes(type));
    expect(toSubject).toEqual([]);
    // valid under the published schemas
    const catalog = await call(stack.api.app, 'GET', '/api/webhooks/event-types', { token: s.token });
    const ajv = new Ajv({ strict: true, allErrors: true });
    addFormats(ajv);
    for (const body of s.seen()) {
      const published = (catalog.body.data.items as { name: string; schema: object }[]).find(
        (t) => t.name === body.type,
      )!;
      expect(ajv.validate(published.schema, body)).toBe(true);
    }
    return count;
  }

  it('failing after two failures in a row, then recovered at the first success: once each', async () => {
    const s = await scenario((attempt) => (attempt <= 2 ? 500 : 200));
    const count = await settled(s, ['webhook.endpoint.failing', 'webhook.endpoint.recovered']);
    expect(count('webhook.endpoint.failing')).toBe(1);
    expect(count('webhook.endpoint.recovered')).toBe(1);
    expect(count('webhook.message.exhausted')).toBe(0);
    expect(count('webhook.endpoint.disabled')).toBe(0);
    const failing = s.seen().find((b) => b.type === 'webhook.endpoint.failing')!;
    expect(failing.data).toEqual({
      endpointId: s.subject.id,
      url: stack.receiver.url + s.subject.path,
      consecutiveFailures: 2,
    });
  });

  it('exhausted when the last attempt fails, and disabled by the failure streak: once each', async () => {
    const s = await scenario(() => 500);
    const count = await settled(s, ['webhook.message.exhausted', 'webhook.endpoint.disabled']);
    expect(count('webhook.endpoint.failing')).toBe(1);
    expect(count('webhook.message.exhausted')).toBe(1);
    expect(count('webhook.endpoint.disabled')).toBe(1);
    expect(count('webhook.endpoint.recovered')).toBe(0);
    expect(s.seen().find((b) => b.type === 'webhook.message.exhausted')!.data).toMatchObject({
      endpointId: s.subject.id,
      eventType: 'tweet.created',
      attempts: 3,
    });
    expect(s.seen().find((b) => b.type === 'webhook.endpoint.disabled')!.data).toMatchObject({
      reason: 'failing',
      consecutiveFailures: 3,
    });
  });

  it("the url they carry has no user name, password, query or fragment: another endpoint's token stays home", async () => {
    const query = `?token=${unique('query-secret')}#${unique('fragment-secret')}`;
    const broken = await scenario(() => 500, { query, userinfo: 'hook-user:hook-password' });
    await settled(broken, [
      'webhook.endpoint.failing',
      'webhook.message.exhausted',
      'webhook.endpoint.disabled',
    ]);
    const healed = await scenario((attempt) => (attempt <= 2 ? 500 : 200), { query });
    await settled(healed, ['webhook.endpoint.failing', 'webhook.endpoint.recovered']);
    for (const s of [broken, healed]) {
      const events = s.seen().filter((b) => b.data.endpointId === s.subject.id);
      expect(events.length).toBeGreaterThanOrEqual(2);
      for (const event of events)
        expect([event.type, event.data.url]).toEqual([event.type, stack.receiver.url + s.subject.path]);
      const received = JSON.stringify(s.seen());
      for (const secret of ['hook-user', 'hook-password', 'token=', 'query-secret', 'fragment-secret'])
        expect(received).not.toContain(secret);
    }
    expect(new Set(broken.seen().map((b) => b.type))).toEqual(
      new Set(['webhook.endpoint.failing', 'webhook.message.exhausted', 'webhook.endpoint.disabled']),
    );
    expect(healed.seen().some((b) => b.type === 'webhook.endpoint.recovered')).toBe(true);
  });

  it('disabled at once by a 410 Gone, with that reason; no exhausted event for it', async () => {
    const s = await scenario(() => 410);
    const count = await settled(s, ['webhook.endpoint.disabled']);
    expect(count('webhook.endpoint.disabled')).toBe(1);
    expect(count('webhook.message.exhausted')).toBe(0);
    expect(s.seen().find((b) => b.type === 'webhook.endpoint.disabled')!.data).toMatchObject({
      endpointId: s.subject.id,
      reason: 'gone',
    });
  });
});
