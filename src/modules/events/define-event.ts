import type { FromSchema, PayloadSchema, SubjectPath } from './payload-schema';

/**
 * One webhook event, defined once beside the module that raises it: its name, what it means, the
 * JSON Schema of its `data`, a realistic example and where its subject is read. The type of `data` is read off the schema
 * (FromSchema), so nothing else describes the payload. The catalog (event-catalog.ts) lists the
 * modules' definitions; descriptions, schemas, examples and types are all derived from that list.
 *
 * A definition file imports only from events/ (this helper and payload-schema.ts): the modules
 * import events/outbox.service.ts to raise events, and the catalog imports the definitions, so
 * anything more would tie the modules and events/ in a circle.
 */
export interface EventDefinition<T extends string = string, S extends PayloadSchema = PayloadSchema> {
  readonly type: T;
  readonly description: string;
  readonly schema: S;
  /** `data` as a receiver gets it: a compile error if it does not fit the schema */
  readonly example: FromSchema<S>;
  /**
   * Where the id of the resource the event is about (its `subject`) sits in `data`: a path of property names
   * the schema requires, ending at a uuid (a compile error otherwise). Every way an event is recorded reads
   * the subject through it (event-catalog.ts, and PostgreSQL for OutboxService.recordWithChange); a oneOf
   * variant without the path is about the community itself (docs/product-decisions.md#event-subjects).
   */
  readonly subject: Readonly<SubjectPath<S>>;
}

export function defineEvent<const T extends string, const S extends PayloadSchema>(definition: {
  type: T;
  description: string;
  schema: S;
  example: NoInfer<FromSchema<S>>;
  subject: NoInfer<Readonly<SubjectPath<S>>>;
}): EventDefinition<T, S> {
  return definition;
}

/** Ids and the instant the published examples share, so that they describe one community. */
export const EXAMPLE = {
  communityId: '0b6a3f1e-5c2d-4e8f-9a1b-2c3d4e5f6a7b',
  userId: '6f1d2c3b-4a59-4e8f-8a7b-1c2d3e4f5a6b',
  at: '2026-11-23T12:00:00.000Z',
} as const;
