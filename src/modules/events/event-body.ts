import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';
import { type EventData, type EventType, eventSubject } from './event-catalog';

/**
 * ulid's own generator asks the Web Crypto API for one byte per character, sixteen calls per id,
 * a visible share of the API's CPU on every write (bench/README.md#writes-benchwritesmjs). The same
 * CSPRNG, read 4 KiB at a time: a byte over 256, as ulid's own, so each character stays uniform.
 */
const randomBytes = Buffer.alloc(4096);
let nextRandomByte = randomBytes.length;
function pooledRandom(): number {
  if (nextRandomByte === randomBytes.length) {
    randomFillSync(randomBytes);
    nextRandomByte = 0;
  }
  return randomBytes[nextRandomByte++] / 256;
}

const nextUlid = monotonicFactory(pooledRandom);

/**
 * The body every receiver gets (docs/product-decisions.md#5-webhooks); `id` is also the `webhook-id` header.
 */
export interface EventBody<T = Record<string, unknown>> {
  id: string;
  type: EventType;
  timestamp: string;
  communityId: string;
  /** the id of the resource the event is about (docs/product-decisions.md#event-subjects) */
  subject: string;
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
  return {
    id: newMessageId(),
    type,
    timestamp: now.toISOString(),
    communityId,
    subject: eventSubject(type, data, communityId),
    data,
  };
}
