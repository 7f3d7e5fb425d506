import type { OpenAPIObject } from '@nestjs/swagger';
import type { PathItemObject, SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { EXAMPLE } from './define-event';
import {
  EVENT_DESCRIPTIONS,
  EVENT_EXAMPLES,
  EVENT_PAYLOAD_SCHEMAS,
  EVENT_TYPES,
  EventType,
  eventSubject,
} from './event-catalog';
import { dateTime, uuid } from './payload-schema';

/**
 * JSON Schema of the whole body a receiver gets for `type` (docs/product-decisions.md#5-webhooks), its `data`
 * included.
 */
export function eventBodySchema(type: EventType) {
  return {
    type: 'object',
    description: EVENT_DESCRIPTIONS[type],
    additionalProperties: false,
    required: ['id', 'type', 'timestamp', 'communityId', 'subject', 'data'],
    properties: {
      id: {
        type: 'string',
        pattern: '^msg_[0-9A-HJKMNP-TV-Z]{26}$',
        description: 'msg_ + ULID; also the webhook-id header: the key to de-duplicate on',
      },
      type: { type: 'string', enum: [type] },
      timestamp: dateTime,
      communityId: uuid,
      subject: {
        ...uuid,
        description:
          'the id of the resource the event is about (the tweet, comment, like, member, community, advertisement, embed session; the endpoint for webhook.* events): what GET …/webhooks/messages?subject= finds',
      },
      data: EVENT_PAYLOAD_SCHEMAS[type],
    },
  } as const;
}

/** A whole example body for `type` (fixed ids and instants). */
export function eventBodyExample(type: EventType) {
  return {
    id: 'msg_01KAT5Y3M8Q2W7E4R6T9Y1V3N5',
    type,
    timestamp: EXAMPLE.at,
    communityId: EXAMPLE.communityId,
    subject: eventSubject(type, EVENT_EXAMPLES[type], EXAMPLE.communityId),
    data: EVENT_EXAMPLES[type],
  };
}

/** The name of an event's body schema in the OpenAPI document's components. */
export const eventSchemaName = (type: EventType) => `WebhookEvent.${type}`;

/**
 * Lists every event's body in the OpenAPI document: a schema per event under components (with its
 * example), and an `x-webhooks` entry per event pointing at it (the OpenAPI 3.0 extension that 3.1's
 * `webhooks` grew from). The document stays 3.0: @nestjs/swagger writes nullable fields as 3.0's
 * `nullable: true`, which a 3.1 reader ignores, so declaring 3.1 would make every one non-nullable.
 */
export function addEventSchemas(document: OpenAPIObject): OpenAPIObject {
  const schemas = document.components?.schemas ?? {};
  const webhooks: Record<string, PathItemObject> = {};
  for (const type of EVENT_TYPES) {
    const name = eventSchemaName(type);
    schemas[name] = { ...eventBodySchema(type), example: eventBodyExample(type) } as unknown as SchemaObject;
    webhooks[type] = {
      post: {
        summary: EVENT_DESCRIPTIONS[type],
        description:
          'Signed with the Standard Webhooks scheme (webhook-id, webhook-timestamp, webhook-signature).',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } },
        },
        responses: { '2XX': { description: 'Any 2xx answer marks the delivery a success' } },
      },
    };
  }
  return {
    ...document,
    components: { ...document.components, schemas },
    'x-webhooks': webhooks,
  } as OpenAPIObject;
}
