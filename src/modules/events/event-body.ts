import { monotonicFactory } from 'ulid';
import type { EventData, EventType } from './event-catalog';

const nextUlid = monotonicFactory();

/**
 * The body every receiver gets (docs/product-decisions.md#5-webhooks); `id` is also the `webhook-id` header.
 */
export interface EventBody<T = Record<string, unknown>> {
  id: string;
  type: EventType;
  timestamp: string;
  communityId: string;
  data: T;
}

export function newMessageId(): string {
  return `msg_${nextUlid()}`;
}

/** Only a catalog name with its own payload type compiles (its definition's schema). */
export function buildEventBody<K extends EventType>(
  type: K,
  communityId: string,
  data: NoInfer<EventData<K>>,
  now = new Date(),
): EventBody<EventData<K>> {
  return { id: newMessageId(), type, timestamp: now.toISOString(), communityId, data };
}
