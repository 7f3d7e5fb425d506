import { Injectable } from '@nestjs/common';
import { DeliveriesStore, DeliveryPage, DeliveryPageQuery } from '../deliveries.store';

export type { DeliveryPage, DeliveryPageQuery, DeliveryView } from '../deliveries.store';

/** The delivery log as the API reads it: one row per attempt, each with the event body it sent. */
@Injectable()
export class DeliveryLogService {
  constructor(private readonly store: DeliveriesStore) {}

  /** A page of an endpoint's attempts, newest first (the caller has checked the endpoint is the community's). */
  list(communityId: string, endpointId: string, query: DeliveryPageQuery): Promise<DeliveryPage> {
    return this.store.list(communityId, endpointId, query);
  }
}
