import { Injectable } from '@nestjs/common';
import { Errors } from '../../common/errors/app-error';
import {
  DeliveryLogStore,
  DeliveryPage,
  DeliveryPageQuery,
  MessagePage,
  MessagePageQuery,
} from './delivery-log.store';

export type { DeliveryPage, DeliveryPageQuery, DeliveryView } from './delivery-log.store';

/** The delivery log as the API reads it: one row per attempt, each with the event body it sent. */
@Injectable()
export class DeliveryLogService {
  constructor(private readonly store: DeliveryLogStore) {}

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
    const since = query.since ? new Date(query.since) : undefined;
    const until = query.until ? new Date(query.until) : undefined;
    if (since && until && since >= until) throw Errors.badRequest('since must be before until', 'since');
    const page = await this.store.messages(communityId, endpointId, { ...query, since, until });
    if (!page) throw Errors.notFound('Webhook endpoint');
    return page;
  }
}
