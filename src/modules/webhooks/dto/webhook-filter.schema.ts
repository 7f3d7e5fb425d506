import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, type OpenAPIObject } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { IsObject } from 'class-validator';
import { OptionalNullable } from '../../../common/decorators/optional.decorators';
import { FILTER_LIMITS, FILTERABLE_FIELDS, type FilterDocument } from '../core/filter/event-filter';

/**
 * The content filter in the OpenAPI document: a recursive schema (a filter's $and, $or, $not and
 * nested documents are filters again), which a DTO class cannot describe, so the components are
 * written here and added to the document beside the event schemas (buildOpenApiDocument). The
 * rules the schema cannot say (the top level's fields, the limits, ISO instants) are in the
 * descriptions; compileFilter enforces them (docs/api.md#content-filters).
 */
export const WEBHOOK_FILTER_SCHEMA = 'WebhookFilter';
const OPERATORS_SCHEMA = 'WebhookFilterOperators';
/** The components written here rather than derived from a DTO class; compileFilter holds their limits. */
export const FILTER_SCHEMAS: readonly string[] = [WEBHOOK_FILTER_SCHEMA, OPERATORS_SCHEMA];
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

// null rides on the string branch: OpenAPI 3.0 has no null type, and `nullable` needs a `type` beside it
const literal: SchemaObject = {
  anyOf: [{ type: 'string', nullable: true }, { type: 'number' }, { type: 'boolean' }],
};
const literals = (description: string): SchemaObject => ({
  type: 'array',
  minItems: 1,
  maxItems: FILTER_LIMITS.listItems,
  items: literal,
  description,
});
const bound = (description: string): SchemaObject => ({
  anyOf: [{ type: 'number' }, { type: 'string', format: 'date-time' }, { type: 'string', format: 'date' }],
  description: `${description}: a number, or an ISO-8601 instant compared as one (a date-time needs its offset)`,
});
const documents = (description: string): SchemaObject => ({
  type: 'array',
  minItems: 1,
  items: ref(WEBHOOK_FILTER_SCHEMA),
  description,
});

export const EXAMPLE_FILTER: FilterDocument = {
  type: 'member.updated',
  data: { member: { role: 'ADMIN' }, previousRole: { $neq: 'ADMIN' } },
};

const FILTER_DESCRIPTION =
  `Which of the subscribed events this endpoint is sent, matched against the delivered body. Keys are ` +
  `field names (at the top level ${FILTERABLE_FIELDS.join(', ')}; an object descends into that field) or ` +
  `$and, $or (lists of filters) and $not (a filter). A field's value is a literal (equality), an object of ` +
  `operators, or a filter of the nested object. A list in the event matches when one item does. At most ` +
  `${FILTER_LIMITS.depth} levels, ${FILTER_LIMITS.nodes} keys and ${FILTER_LIMITS.bytes} bytes of JSON.`;

/** The filter's components: WebhookFilter and the operators of a field's condition. */
export const WEBHOOK_FILTER_SCHEMAS: Record<string, SchemaObject> = {
  [WEBHOOK_FILTER_SCHEMA]: {
    type: 'object',
    description: FILTER_DESCRIPTION,
    minProperties: 1,
    properties: {
      $and: documents('holds when every filter of the list holds'),
      $or: documents('holds when one filter of the list holds'),
      $not: { description: 'holds when this filter does not', allOf: [ref(WEBHOOK_FILTER_SCHEMA)] },
    },
    additionalProperties: {
      description:
        "a field's condition: a literal (equality), an object of operators, or a filter of the nested object. " +
        '(A list of filters is the value of $and and $or only: it is listed here so that generated types, ' +
        'which read this as the type of every key, admit them; a field given a list is refused.)',
      anyOf: [
        { type: 'string', nullable: true },
        { type: 'number' },
        { type: 'boolean' },
        ref(OPERATORS_SCHEMA),
        ref(WEBHOOK_FILTER_SCHEMA),
        { type: 'array', items: ref(WEBHOOK_FILTER_SCHEMA) },
      ],
    },
    example: EXAMPLE_FILTER,
  },
  [OPERATORS_SCHEMA]: {
    type: 'object',
    description: "A field's operators; every one given must hold.",
    minProperties: 1,
    properties: {
      $eq: { ...literal, description: 'equal to this literal' },
      $neq: { ...literal, description: 'not equal (also true when the field is absent)' },
      $in: literals('equal to one of these'),
      $nin: literals('equal to none of these (also true when the field is absent)'),
      $gt: bound('greater than'),
      $gte: bound('greater than or equal to'),
      $lt: bound('less than'),
      $lte: bound('less than or equal to'),
      $exists: { type: 'boolean', description: 'true: the field is present (null counts); false: absent' },
      $startsWith: { type: 'string', description: 'a string starting with this text (case-sensitive)' },
    },
    additionalProperties: false,
    example: { $gte: 10, $lt: 100 },
  },
};

/** Adds the filter's components to the document. */
export function addWebhookFilterSchemas(document: OpenAPIObject): OpenAPIObject {
  return {
    ...document,
    components: {
      ...document.components,
      schemas: { ...document.components?.schemas, ...WEBHOOK_FILTER_SCHEMAS },
    },
  };
}

/** The `filter` field of a request: a filter object or null; its content is checked by the service. */
export function FilterField(description: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ nullable: true, allOf: [ref(WEBHOOK_FILTER_SCHEMA)], description }),
    OptionalNullable(),
    IsObject({ message: 'filter must be an object (a filter document) or null' }),
  );
}

/** The `filter` field of a read. */
export function FilterReadField(): PropertyDecorator {
  return ApiProperty({
    nullable: true,
    allOf: [ref(WEBHOOK_FILTER_SCHEMA)],
    description: 'which of the subscribed events are sent (a filter document); null: every one',
  });
}
