import { Injectable } from '@nestjs/common';
import { Errors } from '../../common/errors/app-error';
import { DeliveriesStore, DeliveryPage, DeliveryPageQuery } from './worker/delivery-attempts.store';

export type { DeliveryPage, DeliveryPageQuery, DeliveryView } from './worker/delivery-attempts.store';

/** The delivery log as the API reads it: one row per attempt, each with the event body it sent. */
@Injectable()
export class DeliveryLogService {
  constructor(private readonly store: DeliveriesStore) {}

  /** A page of an endpoint's attempts, newest first; 404 when the community has no such endpoint. */
  async list(communityId: string, endpointId: string, query: DeliveryPageQuery): Promise<DeliveryPage> {
    const page = await this.store.list(communityId, endpointId, query);
    if (!page) throw Errors.notFound('Webhook endpoint');
    return page;
  }
}
