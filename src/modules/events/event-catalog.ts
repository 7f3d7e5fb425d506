import { WEBHOOK_TEST_EVENT } from '../webhooks/webhook-test.event';
import { MODULE_EVENTS } from './module-events';
import type { FromSchema } from './payload-schema';

/** The modules' events (module-events.ts registers them), the only ones an endpoint may subscribe to. */
const SUBSCRIBABLE_DEFINITIONS = MODULE_EVENTS;

/** Every event, the test route's `webhook.test` last (it is deliberately not subscribable). */
export const EVENTS = [...SUBSCRIBABLE_DEFINITIONS, WEBHOOK_TEST_EVENT] as const;

type Definition = (typeof EVENTS)[number];
export type SubscribableEvent = (typeof SUBSCRIBABLE_DEFINITIONS)[number]['type'];
export type EventType = Definition['type'];
type DefinitionOf<K extends EventType> = Extract<Definition, { type: K }>;

export const SUBSCRIBABLE_EVENTS: readonly SubscribableEvent[] = SUBSCRIBABLE_DEFINITIONS.map((e) => e.type);

/** Sent only by the test route; never subscribable. */
export const TEST_EVENT = WEBHOOK_TEST_EVENT.type;

/** Every event's name, subscribable ones first, in catalog order. */
export const EVENT_TYPES: readonly EventType[] = EVENTS.map((e) => e.type);

const byType = <V>(pick: (definition: Definition) => V) =>
  Object.fromEntries(EVENTS.map((e) => [e.type, pick(e)])) as Record<EventType, V>;

export const EVENT_DESCRIPTIONS: Record<EventType, string> = byType((e) => e.description);

/** The JSON Schema of each event's `data`. */
export const EVENT_PAYLOAD_SCHEMAS = byType((e) => e.schema) as {
  [K in EventType]: DefinitionOf<K>['schema'];
};

/** One realistic `data` per event, published beside its schema. */
export const EVENT_EXAMPLES = byType((e) => e.example) as { [K in EventType]: EventPayload<K> };

/** An event's `data` as the code that raises it holds it (instants are Dates). */
export type EventData<K extends EventType> = FromSchema<DefinitionOf<K>['schema'], 'raised'>;

/** An event's `data` as a receiver gets it (instants are ISO-8601 strings). */
export type EventPayload<K extends EventType> = FromSchema<DefinitionOf<K>['schema']>;

/** Where each event's subject sits in its `data` (its definition's `subject`). */
export const EVENT_SUBJECT_PATHS: Record<EventType, readonly string[]> = byType((e) => e.subject);

/**
 * The id of the resource an event is about, read from its `data` at its definition's path; the community's
 * own id when the data holds no value there (a oneOf variant without it: the sidebar of customization.updated).
 */
export function eventSubject(type: EventType, data: unknown, communityId: string): string {
  let value: unknown = data;
  for (const key of EVENT_SUBJECT_PATHS[type]) {
    value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  }
  return typeof value === 'string' ? value : communityId;
}

export function isSubscribable(name: string): name is SubscribableEvent {
  return (SUBSCRIBABLE_EVENTS as readonly string[]).includes(name);
}
