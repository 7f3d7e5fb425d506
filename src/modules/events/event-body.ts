import { monotonicFactory } from 'ulid';
import type { EventType } from './event-catalog';

const nextUlid = monotonicFactory();

/** The body every receiver gets (contract §5); `id` is also the `webhook-id` header. */
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

export function buildEventBody<T extends Record<string, unknown>>(
  type: EventType,
  communityId: string,
  data: T,
  now = new Date(),
): EventBody<T> {
  return { id: newMessageId(), type, timestamp: now.toISOString(), communityId, data };
}
