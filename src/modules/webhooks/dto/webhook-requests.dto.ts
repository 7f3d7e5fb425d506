import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsObject,
  IsString,
  IsUUID,
  Max,
  Matches,
  MaxLength,
  Min,
  ValidateBy,
} from 'class-validator';
import { TenantBodyDto } from '../../../common/http/tenant-body.dto';
import { isUuid } from '../../../common/validation/uuid';
import { SLUG_PATTERN } from '../../account/dto/create-community.dto';
import { SUBSCRIBABLE_EVENTS, type SubscribableEvent, TEST_EVENT } from '../../events/event-catalog';
import { OptionalNotNull, OptionalNullable } from '../../../common/decorators/optional.decorators';
import { ENDPOINT_ORDERINGS, type EndpointOrdering } from '../core/webhook-endpoints.store';
import {
  HEADER_VALUE_PATTERN,
  MAX_CUSTOM_HEADERS,
  MAX_HEADER_VALUE_BYTES,
} from '../core/secrets/endpoint-headers';
import {
  RETRY_SCHEDULE_RULES,
  RetryScheduleField,
  TIMEOUT_RULES,
  TimeoutField,
} from './delivery-settings.fields';
import type { FilterDocument } from '../core/filter/event-filter';
import { FilterField } from './webhook-filter.schema';
import {
  AUTH_RULES,
  AuthField,
  type OAuthInputDto,
  TLS_RULES,
  TlsField,
  type TlsInputDto,
} from './endpoint-transport.fields';
import {
  BrokerNameField,
  EndpointTypeField,
  EXCHANGE_RULES,
  ROUTING_KEY_RULES,
  SUBJECT_RULES,
  TYPE_RULES,
} from './broker-destination.fields';
import type { EndpointType } from '../core/broker-transport/broker-destination';

export const MAX_URL_LENGTH = 2048;
/** An endpoint's rate limit, in deliveries per second (docs/api.md#webhooks). */
export const MIN_RATE_LIMIT = 1;
export const MAX_RATE_LIMIT = 10_000;
const RATE_LIMIT_RULES =
  `deliveries per second to this endpoint across every worker, ${MIN_RATE_LIMIT}–${MAX_RATE_LIMIT}; null: no limit. ` +
  'A delivery held back by it waits without counting as a failure';

/** The `rateLimit` field: an integer in range, or null. */
function RateLimitField(description: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: 'integer',
      nullable: true,
      minimum: MIN_RATE_LIMIT,
      maximum: MAX_RATE_LIMIT,
      example: 50,
      description,
    }),
    OptionalNullable(),
    IsInt(),
    Min(MIN_RATE_LIMIT),
    Max(MAX_RATE_LIMIT),
  );
}

const ORDERING_RULES =
  '"unordered": deliveries go out in parallel, in any order; "fifo": one at a time across every worker, in the ' +
  'order their events were committed, a failing delivery holding back the ones behind it until it succeeds or ' +
  'runs out of retries';

/** The `ordering` field: one of ENDPOINT_ORDERINGS. */
function OrderingField(description: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ enum: ENDPOINT_ORDERINGS, example: 'fifo', description }),
    OptionalNotNull(),
    IsIn(ENDPOINT_ORDERINGS, { message: `ordering must be one of: ${ENDPOINT_ORDERINGS.join(', ')}` }),
  );
}

const FILTER_RULES =
  'only the subscribed events whose delivered body matches this filter are sent: the others are not attempted, ' +
  'logged nor counted as missed (the test route ignores it). null: every subscribed event';

/** What recover re-sends: events whose latest attempt failed, events a paused or disabled endpoint missed. */
export const RECOVER_INCLUDES = ['failed', 'missed'] as const;
export type RecoverInclude = (typeof RECOVER_INCLUDES)[number];

/**
 * The `headers` field as the OpenAPI document shows it; its rules are checked by the service (endpoint-headers.ts).
 * A PATCH may send a value back masked (`…` is not ASCII), so only the create states the values' pattern.
 */
function headersProperty(description: string, { masksAllowed }: { masksAllowed: boolean }) {
  return ApiPropertyOptional({
    type: 'object',
    additionalProperties: {
      type: 'string',
      maxLength: MAX_HEADER_VALUE_BYTES,
      ...(masksAllowed ? {} : { pattern: HEADER_VALUE_PATTERN }),
    },
    maxProperties: MAX_CUSTOM_HEADERS,
    example: { Authorization: 'Bearer rcv_4f9a2c71d3', 'X-Route': 'eu' },
    description,
  });
}
const HEADERS_RULES =
  `up to ${MAX_CUSTOM_HEADERS}; names are HTTP tokens, and names the platform sets (webhook-*, content-type, content-length, host, user-agent, ` +
  'traceparent, tracestate) or that belong to the connection (connection, transfer-encoding, te, upgrade, keep-alive, trailer, expect, proxy-*) are refused; ' +
  `values at most ${MAX_HEADER_VALUE_BYTES} bytes of visible ASCII, spaces and tabs, neither beginning nor ending with a space or tab. Stored encrypted; reads show each value masked`;
const EVENTS_MESSAGE = `each value in events must be one of: ${SUBSCRIBABLE_EVENTS.join(', ')} (${TEST_EVENT} is sent only by the test route)`;

/** A community's id or its slug (any case), as every other way of naming the community takes (docs/api.md#webhooks). */
export function IsCommunityRef(): PropertyDecorator {
  return ValidateBy({
    name: 'isCommunityRef',
    validator: {
      validate: (value: unknown) =>
        isUuid(value) || (typeof value === 'string' && SLUG_PATTERN.test(value.toLowerCase())),
      defaultMessage: (args) =>
        `${args?.property ?? 'communityId'} must be the community's id (a uuid) or its slug`,
    },
  });
}

/** The test route's optional body: which event to send (docs/api.md#webhooks, "Test"). */
export class SendTestDto {
  /** send the catalog's example of this event type instead of webhook.test (any subscribable type) */
  @ApiPropertyOptional({ enum: SUBSCRIBABLE_EVENTS })
  @OptionalNotNull()
  @IsIn(SUBSCRIBABLE_EVENTS, {
    message: `eventType must be one of: ${SUBSCRIBABLE_EVENTS.join(', ')} (leave it out to send ${TEST_EVENT})`,
  })
  eventType?: SubscribableEvent;
}

export class CommunityParamsDto {
  @ApiProperty({ description: "the community's id (a uuid) or its slug", example: 'acme' })
  @IsCommunityRef()
  communityId: string;
}

export class WebhookParamsDto extends CommunityParamsDto {
  @IsUUID()
  webhookId: string;
}

export class MessageParamsDto extends CommunityParamsDto {
  /** the message's webhook-id, as the log shows it (msg_ and a ULID) */
  @MaxLength(100)
  @Matches(/^msg_[0-9A-Za-z]+$/, { message: 'messageId must be a message id: msg_ and letters or digits' })
  messageId: string;
}

export class DeliveryParamsDto extends WebhookParamsDto {
  @IsUUID()
  deliveryId: string;
}

/** Resend takes no fields of its own; the body may be empty. */
export class ResendDeliveryDto extends TenantBodyDto {}

/** Recover's window (docs/product-decisions.md#5-webhooks): since < until, at most 14 days apart; what to send again. */
export class RecoverDeliveriesDto extends TenantBodyDto {
  @ApiProperty({
    format: 'date-time',
    example: '2026-11-20T00:00:00Z',
    description: 'start of the window, inclusive (ISO 8601 date-time)',
  })
  @IsISO8601({ strict: true })
  since: string;

  @ApiPropertyOptional({
    format: 'date-time',
    description:
      'end of the window, exclusive (ISO 8601 date-time); default: now; at most 14 days after since',
  })
  @OptionalNotNull()
  @IsISO8601({ strict: true })
  until?: string;

  @ApiPropertyOptional({
    enum: RECOVER_INCLUDES,
    isArray: true,
    // no `default` keyword: openapi-typescript would make the field required in the client's request type
    example: ['failed', 'missed'],
    description:
      'what to send again: "failed", events whose latest attempt FAILED and was made in the window; "missed", events raised in the window that the endpoint was subscribed to but never attempted because it was paused or auto-disabled, in the order they were committed, while their body is kept (WEBHOOK_MESSAGE_RETENTION). When left out: ["failed"]',
  })
  @OptionalNotNull()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayUnique()
  @IsIn(RECOVER_INCLUDES, {
    each: true,
    message: `each value in include must be one of: ${RECOVER_INCLUDES.join(', ')}`,
  })
  include?: RecoverInclude[];
}

export class CreateWebhookDto extends TenantBodyDto {
  @EndpointTypeField(`${TYPE_RULES}; default: "http"`)
  type?: EndpointType;

  /** http: an https URL on port 443 whose host resolves only to public addresses; rabbitmq: amqps://[user:password@]host[:port][/vhost]; nats: tls://[user:password@ or token@]host[:port]. A broker's host obeys the same address rules, on any port */
  @IsString()
  @MaxLength(MAX_URL_LENGTH)
  url: string;

  @BrokerNameField(EXCHANGE_RULES, 'community-events')
  exchange?: string | null;

  @BrokerNameField(ROUTING_KEY_RULES, 'webhooks.tweet')
  routingKey?: string | null;

  @BrokerNameField(SUBJECT_RULES, 'community.events')
  subject?: string | null;

  /** subscribed event names: a non-empty list without repeats, from GET /api/webhooks/event-types */
  @ApiProperty({ enum: SUBSCRIBABLE_EVENTS, isArray: true })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(SUBSCRIBABLE_EVENTS.length)
  @ArrayUnique()
  @IsIn(SUBSCRIBABLE_EVENTS, { each: true, message: EVENTS_MESSAGE })
  events: string[];

  @OptionalNotNull()
  @IsString()
  @MaxLength(500)
  description?: string;

  @headersProperty(`custom headers sent with every delivery and test, name → value: ${HEADERS_RULES}`, {
    masksAllowed: false,
  })
  @OptionalNotNull()
  @IsObject()
  headers?: Record<string, string>;

  @RateLimitField(`${RATE_LIMIT_RULES}; default: null`)
  rateLimit?: number | null;

  @OrderingField(`${ORDERING_RULES}; default: "unordered"`)
  ordering?: EndpointOrdering;

  @RetryScheduleField(`${RETRY_SCHEDULE_RULES}; default: null`)
  retrySchedule?: string[] | null;

  @TimeoutField(`${TIMEOUT_RULES}; default: null`)
  timeoutMs?: number | null;
  @FilterField(`${FILTER_RULES}; default: null`)
  filter?: FilterDocument | null;

  @TlsField(`${TLS_RULES}; default: null`)
  tls?: TlsInputDto | null;

  @AuthField(`${AUTH_RULES}; default: null`)
  auth?: OAuthInputDto | null;
}

export class UpdateWebhookDto extends TenantBodyDto {
  @EndpointTypeField('fixed at create: only the stored type is accepted (any other is 400)')
  type?: EndpointType;

  /** the rules of the endpoint's type (see create). A broker url sent back as a read showed it (credentials masked) keeps the stored credentials; one without credentials removes them */
  @OptionalNotNull()
  @IsString()
  @MaxLength(MAX_URL_LENGTH)
  url?: string;

  @BrokerNameField(EXCHANGE_RULES, 'community-events')
  exchange?: string | null;

  @BrokerNameField(ROUTING_KEY_RULES, 'webhooks.tweet')
  routingKey?: string | null;

  @BrokerNameField(SUBJECT_RULES, 'community.events')
  subject?: string | null;

  @ApiPropertyOptional({ enum: SUBSCRIBABLE_EVENTS, isArray: true })
  @OptionalNotNull()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(SUBSCRIBABLE_EVENTS.length)
  @ArrayUnique()
  @IsIn(SUBSCRIBABLE_EVENTS, { each: true, message: EVENTS_MESSAGE })
  events?: string[];

  @OptionalNotNull()
  @IsString()
  @MaxLength(500)
  description?: string;

  /** false pauses deliveries; true re-enables (an auto-disabled endpoint gets disabledAt and its failure counter cleared) */
  @OptionalNotNull()
  @IsBoolean()
  isActive?: boolean;

  @headersProperty(
    `replaces the custom headers ({} removes them all): ${HEADERS_RULES}. A value sent back exactly as a read showed it (masked) keeps the stored value`,
    { masksAllowed: true },
  )
  @OptionalNotNull()
  @IsObject()
  headers?: Record<string, string>;

  @RateLimitField(`${RATE_LIMIT_RULES}; null removes the limit`)
  rateLimit?: number | null;

  @OrderingField(`${ORDERING_RULES}. Safe to switch at any time: nothing queued is lost or sent twice`)
  ordering?: EndpointOrdering;

  @RetryScheduleField(`${RETRY_SCHEDULE_RULES}; null goes back to the platform's`)
  retrySchedule?: string[] | null;

  @TimeoutField(`${TIMEOUT_RULES}; null goes back to the platform's`)
  timeoutMs?: number | null;
  @FilterField(`${FILTER_RULES}; null removes it. Applies to events relayed after the change`)
  filter?: FilterDocument | null;

  @TlsField(`${TLS_RULES}. Replaces the whole setting (send the key again); null removes it`)
  tls?: TlsInputDto | null;

  @AuthField(
    `${AUTH_RULES}. Replaces the whole setting (a client secret sent back masked keeps the stored one); null removes it`,
  )
  auth?: OAuthInputDto | null;
}
