import { Injectable } from '@nestjs/common';
import { Errors } from '../../common/errors/app-error';
import { decodeCursor, encodeCursor } from '../../common/pagination/cursor';
import {
  type CommunityMessage,
  type CommunityMessageQuery,
  CommunityMessagesStore,
  messageIdBound,
} from './community-messages.store';
import {
  DeliveryLogStore,
  DeliveryPage,
  DeliveryPageQuery,
  MessagePage,
  MessagePageQuery,
} from './delivery-log.store';

export type { DeliveryPage, DeliveryPageQuery } from './delivery-log.store';
export type { DeliveryView } from './delivery-view';

/** The delivery log as the API reads it: one row per attempt, each with the event body it sent. */
@Injectable()
export class DeliveryLogService {
  constructor(
    private readonly store: DeliveryLogStore,
    private readonly community: CommunityMessagesStore,
  ) {}

  /** A page of an endpoint's attempts, newest first; 404 when the community has no such endpoint. */
  async list(communityId: string, endpointId: string, query: DeliveryPageQuery): Promise<DeliveryPage> {
    const page = await this.store.page(communityId, endpointId, query);
    if (!page) throw Errors.notFound('Webhook endpoint');
    return page;
  }

  /** A page of an endpoint's messages, each with its attempts; 404 when the community has no such endpoint. */
  async messages(
    communityId: string,
    endpointId: string,
    query: Omit<MessagePageQuery, 'since' | 'until'> & { since?: string; until?: string },
  ): Promise<MessagePage> {
    const { since, until } = windowOf(query);
    const page = await this.store.messages(communityId, endpointId, { ...query, since, until });
    if (!page) throw Errors.notFound('Webhook endpoint');
    return page;
  }

  /**
   * A page of the community's messages across its endpoints, newest first, after the previous page's cursor
   * (docs/api.md#community-wide-messages). The cursor holds the page's last message id.
   */
  async communityMessages(
    communityId: string,
    query: Omit<CommunityMessageQuery, 'after' | 'fromId' | 'beforeId'> & {
      cursor?: string;
      since?: string;
      until?: string;
      communityId?: string;
    },
  ): Promise<{ items: CommunityMessage[]; limit: number; nextCursor: string | null }> {
    const { since, until } = windowOf(query);
    let after: string | undefined;
    if (query.cursor !== undefined) {
      const key = decodeCursor(query.cursor, 1);
      if (!key || !/^msg_[0-9A-Za-z]+$/.test(key[0])) {
        throw Errors.badRequest("cursor must be a page's nextCursor, as it was given", 'cursor');
      }
      after = key[0];
    }
    const { cursor: _cursor, since: _since, until: _until, communityId: _community, ...filters } = query;
    const page = await this.community.page(communityId, {
      ...filters,
      after,
      fromId: since && messageIdBound(since),
      beforeId: until && messageIdBound(until),
    });
    const last = page.items.at(-1);
    return {
      items: page.items,
      limit: query.limit,
      nextCursor: page.hasMore && last ? encodeCursor([last.messageId]) : null,
    };
  }
}

/** `since` and `until` as instants; 400 unless since is before until. */
function windowOf(query: { since?: string; until?: string }): { since?: Date; until?: Date } {
  const since = query.since ? new Date(query.since) : undefined;
  const until = query.until ? new Date(query.until) : undefined;
  if (since && until && since >= until) throw Errors.badRequest('since must be before until', 'since');
  return { since, until };
}
