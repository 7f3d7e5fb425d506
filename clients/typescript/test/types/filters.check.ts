// Type-level tests of the filter builder (src/filters.ts), checked by `tsc -p tsconfig.test.json`.
import type { CommunityPlatformClient } from '../../src/client.js';
import { eventFilter, type WebhookFilter } from '../../src/index.js';

const staffTweets: WebhookFilter = eventFilter('tweet.created', {
  tweet: { authorId: { $in: ['0b7c5e0e-7a55-4d35-9d1f-2c6f3c9a1b20'] }, likeCount: { $gte: 10 } },
});
const newAdmins = eventFilter('member.updated', {
  member: { role: 'ADMIN' },
  previousRole: { $neq: 'ADMIN' },
  $or: [{ member: { name: { $startsWith: 'A' } } }, { $not: { member: { email: { $exists: false } } } }],
});
void [staffTweets, newAdmins];

// @ts-expect-error a tweet.created event has no member
eventFilter('tweet.created', { member: { role: 'ADMIN' } });
// @ts-expect-error likeCount is a number
eventFilter('tweet.created', { tweet: { likeCount: 'many' } });
// @ts-expect-error a role is one of the document's values
eventFilter('member.updated', { member: { role: 'KING' } });
// @ts-expect-error $startsWith applies to strings only
eventFilter('tweet.created', { tweet: { likeCount: { $startsWith: '1' } } });
// @ts-expect-error not an event type
eventFilter('tweet.liked');

// the document's own type admits every form the service takes, $and and $or lists included
const raw: WebhookFilter = {
  $and: [{ type: 'tweet.created' }, { data: { tweet: { likeCount: { $gt: 1 } } } }],
};
void raw;

// a built filter is what create and update take, and what every read answers
declare const client: CommunityPlatformClient;
void client.webhooks.create('acme', {
  url: 'https://example.com/h',
  events: ['member.updated'],
  filter: newAdmins,
});
void client.webhooks.update('acme', 'id', { filter: null });
void client.webhooks.list('acme').then(({ items }) => {
  const filter: WebhookFilter | null = items[0].filter;
  void filter;
});
