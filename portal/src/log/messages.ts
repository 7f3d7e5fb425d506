import { call, client, type Session } from '../api/client';
import type { paths } from '../api/openapi';
import type { Delivery, Message } from '../api/types';

/** The messages route's page when Load more asks, and its largest (its `limit`): a refresh may read several. */
export const PAGE = 20;
const MAX_PAGE = 100;
/** After a resend or a recover the log follows the new attempts this long, so their outcome shows. */
export const FOLLOW_MS = 30_000;
export const FOLLOW_EVERY_MS = 2_000;
/** The test route's own event (GET /event-types, `testEvent`): no endpoint subscribes to it, yet the log shows it. */
export const TEST_EVENT = 'webhook.test';

/** The log's search, as its form holds it; each field left empty is no filter. */
export interface LogSearch {
  status: '' | Delivery['status'];
  eventType: string;
  /** datetime-local values, in the viewer's time zone */
  since: string;
  until: string;
  messageId: string;
}

export const NO_SEARCH: LogSearch = { status: '', eventType: '', since: '', until: '', messageId: '' };

type MessagesQuery = NonNullable<
  paths['/api/communities/{communityId}/webhooks/{webhookId}/messages']['get']['parameters']['query']
>;

/** The messages route's query for a search: the local times sent as ISO instants. */
export function messagesQuery(search: LogSearch, offset: number, limit: number): MessagesQuery {
  const query: MessagesQuery = { limit, offset };
  if (search.status) query.status = search.status;
  if (search.eventType) query.eventType = search.eventType as MessagesQuery['eventType'];
  if (search.since) query.since = new Date(search.since).toISOString();
  if (search.until) query.until = new Date(search.until).toISOString();
  if (search.messageId.trim()) query.messageId = search.messageId.trim();
  return query;
}

/** One page of an endpoint's messages. */
export function readPage(
  session: Session,
  at: { communityId: string; webhookId: string },
  search: LogSearch,
  offset: number,
  limit: number,
) {
  return call(session, (headers) =>
    client.GET('/api/communities/{communityId}/webhooks/{webhookId}/messages', {
      params: { path: at, query: messagesQuery(search, offset, limit) },
      headers,
    }),
  );
}

/** The first `count` messages of a search, in pages of at most MAX_PAGE (a refresh of what is shown). */
export async function readMessages(
  session: Session,
  at: { communityId: string; webhookId: string },
  search: LogSearch,
  count: number,
): Promise<{ items: Message[]; hasMore: boolean }> {
  const items: Message[] = [];
  for (;;) {
    const page = await readPage(session, at, search, items.length, Math.min(MAX_PAGE, count - items.length));
    items.push(...page.items);
    if (!page.hasMore || items.length >= count) return { items, hasMore: page.hasMore };
  }
}

/**
 * Messages are ordered by their latest attempt, so one retried between two reads moves up: a later page may
 * hold a message already shown, which is kept once, where it was.
 */
export function appendNew(shown: Message[], more: Message[]): Message[] {
  const ids = new Set(shown.map((m) => m.messageId));
  return [...shown, ...more.filter((m) => !ids.has(m.messageId))];
}

/** An attempt the worker is sending or about to send, whose outcome is worth waiting for. */
export function dueSoon(delivery: Delivery | undefined, now: number): boolean {
  if (delivery?.status !== 'PENDING') return false;
  if (delivery.sentAt) return true;
  return delivery.nextAttemptAt === null || Date.parse(delivery.nextAttemptAt) <= now + FOLLOW_EVERY_MS;
}

/** What an empty page means for the search that gave it. */
export function emptyText(search: LogSearch): string {
  if (search.messageId.trim()) return 'No message with this id for this endpoint.';
  const filtered = Object.values(search).some((value) => value !== '');
  return filtered ? 'No message matches this search.' : 'No deliveries yet.';
}
