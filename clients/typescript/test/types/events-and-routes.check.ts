// Type-level tests, checked by `tsc -p tsconfig.test.json` (part of `npm test`) and never run: each
// `@ts-expect-error` fails the check when the line it marks compiles, so a type that got looser fails too.
import type { CommunityPlatformClient } from '../../src/client.js';
import type {
  AnyWebhookEvent,
  Delivery,
  SubscribableEventType,
  WebhookEvent,
  WebhookEventType,
} from '../../src/index.js';
import { verifyWebhook } from '../../src/index.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const expectTrue = <T extends true>(value: T) => value;

// The event types are the catalog the document lists for webhook create, plus webhook.test.
expectTrue<Equal<WebhookEventType, SubscribableEventType | 'webhook.test'>>(true);

declare const headers: Record<string, string>;
const event = verifyWebhook(headers, '{}', 'whsec_x');
expectTrue<Equal<typeof event, AnyWebhookEvent>>(true);

// `type` narrows `data` to that event's payload schema.
switch (event.type) {
  case 'tweet.created': {
    const content: string = event.data.tweet.content;
    void content;
    // @ts-expect-error a tweet.created event carries a tweet, not a comment
    void event.data.comment;
    break;
  }
  case 'comment.created': {
    const parent: 'tweets' | 'tasks' = event.data.comment.parentType;
    void parent;
    break;
  }
  case 'webhook.test': {
    const message: string = event.data.message;
    void message;
    break;
  }
  default:
    break;
}
// @ts-expect-error not an event type of the catalog
export const unknownType: WebhookEventType = 'tweet.liked';
export const oneType: WebhookEvent<'member.joined'>['type'] = 'member.joined';

// resend answers the new attempt, recover the counts queued, remaining and expired; include is typed.
declare const client: CommunityPlatformClient;
export async function routes() {
  const attempt = await client.webhooks.deliveries.resend('c', 'w', 'd');
  expectTrue<Equal<typeof attempt, Delivery>>(true);
  const messageId: string = attempt.messageId;
  const recovered = await client.webhooks.recover('c', 'w', { since: new Date() });
  const queued: number = recovered.queued;
  const remaining: number = recovered.remaining;
  const expired: number = recovered.expired;
  await client.webhooks.recover('c', 'w', { since: new Date(), include: ['missed'] });
  // @ts-expect-error include names failed or missed only
  await client.webhooks.recover('c', 'w', { since: new Date(), include: ['lost'] });
  // @ts-expect-error since is required
  await client.webhooks.recover('c', 'w', {});
  return [messageId, queued, remaining, expired];
}

// A write takes the caller's Idempotency-Key last, the hand-written wrappers too; the auth routes and
// the portal-session exchange take none.
export async function idempotencyKeys() {
  await client.tweets.create({ content: 'x' }, { idempotencyKey: 'order-1' });
  await client.tweets.delete('t', { idempotencyKey: 'order-2' });
  await client.members.setRole('m', 'ADMIN', { idempotencyKey: 'order-3' });
  await client.webhooks.recover('c', 'w', { since: new Date() }, { idempotencyKey: 'order-4' });
  // @ts-expect-error the key is a string
  await client.tweets.create({ content: 'x' }, { idempotencyKey: 1 });
  // @ts-expect-error login takes no key
  await client.auth.login({ email: 'a@example.com', password: 'pw' }, { idempotencyKey: 'k' });
  // @ts-expect-error the portal-session exchange takes no key
  await client.webhooks.openPortalSession('token', { idempotencyKey: 'k' });
}
