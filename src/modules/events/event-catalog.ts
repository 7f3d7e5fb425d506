/**
 * Events a webhook endpoint may subscribe to (docs/product-decisions.md#5-webhooks). `webhook.test` is
 * deliberately absent.
 */
export const SUBSCRIBABLE_EVENTS = [
  'community.updated',
  'tweet.created',
  'tweet.updated',
  'tweet.deleted',
  'comment.created',
  'like.created',
  'member.joined',
  'member.updated',
  'customization.updated',
  'embed.session.created',
] as const;
export type SubscribableEvent = (typeof SUBSCRIBABLE_EVENTS)[number];

/** Sent only by the test route; never subscribable. */
export const TEST_EVENT = 'webhook.test';
export type EventType = SubscribableEvent | typeof TEST_EVENT;

export const EVENT_DESCRIPTIONS: Record<EventType, string> = {
  'community.updated': 'Settings or branding of the community changed',
  'tweet.created': 'A tweet was posted',
  'tweet.updated': 'A tweet was edited',
  'tweet.deleted': 'A tweet was deleted',
  'comment.created': 'A comment was added to a tweet or a task',
  'like.created': 'A tweet or a task was liked',
  'member.joined': 'A member joined the community (created, invited or bulk-upserted)',
  'member.updated': "A member's role or name changed",
  'customization.updated': 'The sidebar or an advertisement changed',
  'embed.session.created': 'An embed session was created',
  'webhook.test': 'Synthetic event sent by the test route',
};

export function isSubscribable(name: string): name is SubscribableEvent {
  return (SUBSCRIBABLE_EVENTS as readonly string[]).includes(name);
}
