/*
 * The JSON Schema subset an event's `data` is written in, and the TypeScript type read off a schema
 * (FromSchema), so each payload is written once: as the schema that GET /api/webhooks/event-types
 * and the OpenAPI document publish, with the type the raising code must pass derived from it.
 *
 * Keywords are kept to the subset that OpenAPI 3.0 and JSON Schema share (single `type`,
 * `nullable`, `enum`, `oneOf`, `format`, `additionalProperties: false`), so the same object is valid
 * in the OpenAPI document's components and in a receiver's JSON Schema validator. FromSchema reads
 * exactly these keywords; the constraints it cannot express in a type (minimum, minItems,
 * uniqueItems, pattern) are checked by the schema tests instead.
 */

/** One node of a payload schema. Arrays are readonly so that a schema written `as const` fits. */
export interface PayloadSchema {
  readonly type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  readonly description?: string;
  readonly nullable?: boolean;
  readonly enum?: readonly (string | number | boolean)[];
  readonly format?: 'uuid' | 'date-time' | 'uri';
  readonly pattern?: string;
  readonly minimum?: number;
  readonly minItems?: number;
  readonly uniqueItems?: boolean;
  readonly items?: PayloadSchema;
  readonly properties?: { readonly [name: string]: PayloadSchema };
  readonly required?: readonly string[];
  readonly additionalProperties?: false;
  readonly oneOf?: readonly PayloadSchema[];
}

/**
 * Who holds the value: `received` is the JSON a receiver parses (instants are ISO-8601 strings);
 * `raised` is what the code that raises the event passes (instants are Dates, which
 * JSON.stringify writes as those strings).
 */
export type Holder = 'received' | 'raised';

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type ObjectFrom<P, R extends readonly string[], H extends Holder> = Simplify<
  { -readonly [K in keyof P as K extends R[number] ? K : never]: FromSchema<P[K], H> } & {
    -readonly [K in keyof P as K extends R[number] ? never : K]?: FromSchema<P[K], H>;
  }
>;

type NonNullFrom<S, H extends Holder> = S extends { enum: readonly (infer E)[] }
  ? E
  : S extends { type: 'string'; format: 'date-time' }
    ? H extends 'raised'
      ? Date
      : string
    : S extends { type: 'string' }
      ? string
      : S extends { type: 'integer' | 'number' }
        ? number
        : S extends { type: 'boolean' }
          ? boolean
          : S extends { type: 'array'; items: infer I }
            ? FromSchema<I, H>[]
            : S extends { type: 'object'; properties: infer P }
              ? ObjectFrom<P, S extends { required: infer R extends readonly string[] } ? R : [], H>
              : never;

/** The TypeScript type of the values `S` accepts (for the keywords of PayloadSchema). */
export type FromSchema<S, H extends Holder = 'received'> = S extends { oneOf: readonly (infer V)[] }
  ? FromSchema<V, H>
  : S extends { nullable: true }
    ? NonNullFrom<S, H> | null
    : NonNullFrom<S, H>;

/**
 * The paths in a payload schema that lead to an id (a `format: uuid` string), each as the tuple of property
 * names from `data` down to it: where an event's subject may be read (define-event.ts). A path descends
 * only through required properties, so every value the schema accepts holds it, except a oneOf variant
 * that lacks it; `D` bounds the depth the compiler explores.
 */
export type SubjectPath<S, D extends unknown[] = []> = D['length'] extends 6
  ? never
  : S extends { type: 'string'; format: 'uuid' }
    ? []
    : S extends { oneOf: readonly (infer V)[] }
      ? V extends unknown
        ? SubjectPath<V, D>
        : never
      : S extends { properties: infer P; required: readonly (infer R)[] }
        ? {
            [K in keyof P & R & string]: [K, ...SubjectPath<P[K], [...D, unknown]>];
          }[keyof P & R & string]
        : never;

// Building blocks the events' schemas share.

export const uuid = { type: 'string', format: 'uuid' } as const;
export const dateTime = { type: 'string', format: 'date-time' } as const;
export const nullableString = { type: 'string', nullable: true } as const;

/** An object schema whose every property is required and no other allowed. */
export function everyFieldRequired<const P extends { readonly [name: string]: PayloadSchema }>(
  properties: P,
) {
  return {
    type: 'object',
    additionalProperties: false,
    required: Object.keys(properties) as (keyof P & string)[],
    properties,
  } as const;
}
