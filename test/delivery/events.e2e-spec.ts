import { SUBSCRIBABLE_EVENTS, type SubscribableEvent } from '../../src/modules/events/event-catalog';
import { memberWithToken, unique } from '../utils/factories';
import { verifyWebhook } from '../utils/webhook-receiver';
import { createEndpoint } from '../utils/worker';
import {
  type Delivered,
  ownerContext,
  raiseEvents,
  subjectsOfEveryEvent,
  waitForDeliveries,
} from './event-triggers';
import { useDeliveryStack } from '../utils/delivery-stack';

/**
 * The resource each event is about, read from a delivered body by hand (docs/product-decisions.md#event-subjects),
 * not through the definitions' paths: a definition that pointed its subject elsewhere fails here. A module
 * with a triggers file of its own writes its events' subjects there (EXPECTED_SUBJECTS).
 */
const idOf = (value: unknown) => (value as { id: string }).id;
const EXPECTED_SUBJECT = subjectsOfEveryEvent({
  'community.updated': (b) => b.communityId,
  'tweet.created': (b) => idOf(b.data.tweet),
  'tweet.updated': (b) => idOf(b.data.tweet),
  'tweet.deleted': (b) => idOf(b.data.tweet),
  'comment.created': (b) => idOf(b.data.comment),
  'like.created': (b) => idOf(b.data.like),
  'member.joined': (b) => idOf(b.data.member),
  'member.updated': (b) => idOf(b.data.member),
  'customization.updated': (b) => (b.data.kind === 'sidebar' ? b.communityId : idOf(b.data.advertisement)),
  'embed.session.created': (b) => idOf(b.data.session),
  'webhook.endpoint.failing': (b) => b.data.endpointId as string,
  'webhook.endpoint.disabled': (b) => b.data.endpointId as string,
  'webhook.endpoint.recovered': (b) => b.data.endpointId as string,
  'webhook.message.exhausted': (b) => b.data.endpointId as string,
  'webhook.endpoint.certificate_expiring': (b) => b.data.endpointId as string,
});

describe('every subscribable event, raised through its route, reaches a subscribed endpoint', () => {
  const stack = useDeliveryStack();

  it('delivers each catalog event, verifiable and carrying what its route did', async () => {
    const { community, token } = await memberWithToken(stack.api.app, { plan: 'ENTERPRISE', role: 'OWNER' });
    const path = `/${unique('all-events')}`;
    const endpoint = await createEndpoint(stack.api, community.id, {
      url: stack.receiver.url + path,
      events: [...SUBSCRIBABLE_EVENTS],
    });
    const ctx = ownerContext(stack.api.app, token, community.id, endpoint.id);

    // the plain case of each event
    const raised = await raiseEvents(ctx, SUBSCRIBABLE_EVENTS, ([plain]) => [plain]);

    const received = () => stack.receiver.at(path).map((r) => verifyWebhook(r, endpoint.secret) as Delivered);
    const bodies = await waitForDeliveries(raised, received);
    expect(new Set(bodies.map((b) => b.type))).toEqual(new Set(SUBSCRIBABLE_EVENTS));
    for (const body of bodies) {
      expect(body.communityId).toBe(community.id);
      expect(body.id).toMatch(/^msg_[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(Number.isNaN(Date.parse(body.timestamp))).toBe(false);
      expect(body.data).toEqual(expect.any(Object));
      // the subject at the top of the body: the tweet, comment, like, member, community… or the endpoint
      expect({ type: body.type, subject: body.subject }).toEqual({
        type: body.type,
        subject: EXPECTED_SUBJECT[body.type as SubscribableEvent](body),
      });
    }
    // and stored with the event, beside its body
    const stored = await stack.api.prisma.outboxEvent.findMany({
      where: { messageId: { in: bodies.map((b) => b.id) } },
      select: { messageId: true, subject: true },
    });
    expect(new Map(stored.map((row) => [row.messageId, row.subject]))).toEqual(
      new Map(bodies.map((b) => [b.id, b.subject])),
    );
  });
});
