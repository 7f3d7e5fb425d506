import { ApiProperty } from '@nestjs/swagger';
import { ENDPOINT_TYPES, type EndpointType } from '../core/broker-transport/broker-destination';
import { BrokerNameReadField } from './broker-destination.fields';
import { DeliveryStatus } from '../../../generated/prisma/enums';
import { ErrorBodyDto } from '../../../common/http/api-docs';
import { SUBSCRIBABLE_EVENTS } from '../../events/event-catalog';
import { ENDPOINT_ORDERINGS, type EndpointOrdering } from '../core/webhook-endpoints.store';
import { FIGURE_PERIODS, type FigurePeriod } from '../attempt-figures';
import type { FilterDocument } from '../core/filter/event-filter';
import { FilterReadField } from './webhook-filter.schema';
import { AuthViewDto, TlsViewDto } from './endpoint-transport.fields';

/** A webhook endpoint as every read route shows it: never its secret. */
export class WebhookDto {
  id: string;
  communityId: string;
  /** "http", or the broker the endpoint publishes to (docs/api.md#broker-destinations); fixed at create */
  @ApiProperty({ enum: ENDPOINT_TYPES })
  type: EndpointType;
  /** where deliveries go; a broker url's credentials masked ("…" and the last 4 characters of the password or token) */
  url: string;
  @BrokerNameReadField('rabbitmq: the exchange published to; null for other types')
  exchange: string | null;
  @BrokerNameReadField('rabbitmq: the routing key; null for other types')
  routingKey: string | null;
  @BrokerNameReadField('nats: the JetStream subject published to; null for other types')
  subject: string | null;
  @ApiProperty({ enum: SUBSCRIBABLE_EVENTS, isArray: true })
  events: string[];
  description: string;
  /** false: deliveries are paused (by the user, or by the platform: see disabledAt) */
  isActive: boolean;
  /** set when the platform auto-disabled the endpoint; cleared on re-enable */
  @ApiProperty({ nullable: true, type: Date })
  disabledAt: Date | null;
  /** consecutive failed attempts; reset by a success and by re-enable */
  consecutiveFailures: number;
  @ApiProperty({ nullable: true, type: Date })
  failingSince: Date | null;
  @ApiProperty({ nullable: true, type: Date })
  lastSuccessAt: Date | null;
  /** the custom headers sent with every delivery: each name with its value masked ("…" and its last 4 characters, or "…" alone under 9) */
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { Authorization: '…71d3', 'X-Route': '…' },
  })
  headers: Record<string, string>;
  /** deliveries per second to this endpoint across every worker; null: no limit */
  @ApiProperty({ nullable: true, type: 'integer' })
  rateLimit: number | null;
  /** "fifo": one delivery in flight at a time, in commit order; "unordered": in parallel */
  @ApiProperty({ enum: ENDPOINT_ORDERINGS })
  ordering: EndpointOrdering;
  /** the waits before attempts 2, 3, … (each shown in its largest whole unit: "90s", "5m", "2h"); null: the platform's WEBHOOK_RETRY_SCHEDULE */
  @ApiProperty({ nullable: true, type: [String], example: ['30s', '5m', '2h'] })
  retrySchedule: string[] | null;
  /** each send's timeout in milliseconds; null: the platform's WEBHOOK_TIMEOUT */
  @ApiProperty({ nullable: true, type: 'integer' })
  timeoutMs: number | null;
  @FilterReadField()
  filter: FilterDocument | null;
  /** mutual TLS: the client certificate's subject, fingerprint and expiry, and the CA certificates; never the key. null: none */
  @ApiProperty({ type: TlsViewDto, nullable: true })
  tls: TlsViewDto | null;
  /** OAuth 2.0 client credentials, the client secret masked; null: none */
  @ApiProperty({ type: AuthViewDto, nullable: true })
  auth: AuthViewDto | null;
  createdAt: Date;
  updatedAt: Date;
}

/** An endpoint in the list, with its attempts of the last 24 hours (the portal's success rate). */
export class WebhookListItemDto extends WebhookDto {
  /** attempts whose outcome was recorded in the current hour and the 23 before (the figures route's 24h totals) */
  attempts24h: number;
  /** of those, the successful ones */
  succeeded24h: number;
}

export class WebhookListDto {
  @ApiProperty({ type: [WebhookListItemDto] })
  items: WebhookListItemDto[];
}

export class CreatedWebhookDto extends WebhookDto {
  /** the signing secret (whsec_…), shown in this response only */
  secret: string;
}

export class RotatedSecretDto {
  endpointId: string;
  /** the new primary signing secret, shown in this response only */
  secret: string;
  rotatedAt: Date;
  /** earlier secrets keep signing (and verifying) until this time, then expire */
  previousSecretsExpireAt: Date;
}

export class DeletedWebhookDto {
  id: string;
  @ApiProperty({ enum: [true] })
  deleted: true;
}

export class DeliveryDto {
  id: string;
  endpointId: string;
  /** identical across the retries of one event; also the webhook-id header */
  messageId: string;
  eventType: string;
  /** 1 for the first try, counting up with each retry */
  attempt: number;
  @ApiProperty({ enum: DeliveryStatus })
  status: DeliveryStatus;
  @ApiProperty({ nullable: true, type: Number })
  responseStatus: number | null;
  /** first 4 KiB of the target's answer */
  @ApiProperty({ nullable: true, type: String })
  responseBody: string | null;
  @ApiProperty({ nullable: true, type: Number })
  durationMs: number | null;
  @ApiProperty({ nullable: true, type: String })
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** when a PENDING attempt is (or was) due; null once the attempt is closed */
  @ApiProperty({ nullable: true, type: Date })
  nextAttemptAt: Date | null;
  /**
   * when the request went out (the attempt was claimed, just before its send); null while it waits.
   * `createdAt` is when the attempt was written (a retry: when its predecessor failed), not when it was sent
   */
  @ApiProperty({ nullable: true, type: Date })
  sentAt: Date | null;
  /** a probe of the test route (webhook.test, or an example of an event type): never retried, resent or recovered */
  test: boolean;
  /** the id of the API request that raised the event (its X-Request-Id, or the id the API gave it); null for events raised outside a request */
  @ApiProperty({ nullable: true, type: String })
  requestId: string | null;
  /**
   * when the message's content was expunged on request (DELETE …/webhooks/messages/{messageId}/content):
   * `payload` and `responseBody` are then null for good; null while the content is kept
   */
  @ApiProperty({ nullable: true, type: Date })
  expungedAt: Date | null;
  /**
   * the event body this attempt sent ({id, type, timestamp, communityId, subject, data}); null once it is pruned,
   * WEBHOOK_MESSAGE_RETENTION (default 30 days) after the event's last attempt, or expunged (`expungedAt`)
   */
  @ApiProperty({
    nullable: true,
    type: 'object',
    additionalProperties: true,
    example: {
      id: 'msg_01JD5Z4M8Q2V3X9K7T6R5P4N3B',
      type: 'tweet.created',
      timestamp: '2026-11-23T14:00:00.000Z',
      communityId: '7c0e4c2a-5d1e-4c9a-9a63-2f0b8f6f1e11',
      subject: '0b7c4d1e-2f3a-4b5c-8d6e-7f8a9b0c1d2e',
      data: { tweet: { id: '0b7c4d1e-2f3a-4b5c-8d6e-7f8a9b0c1d2e' } },
    },
  })
  payload: Record<string, unknown> | null;

  @ApiProperty({
    enum: ['event', 'retry', 'resend', 'recover', 'replay', 'test'],
    description:
      'what made this attempt: "event" the relay\'s first attempt, "retry" one scheduled after a failure, "resend" or "recover" those routes, "replay" a bulk replay (replayId), "test" the test route',
  })
  trigger: 'event' | 'retry' | 'resend' | 'recover' | 'replay' | 'test';

  /** the bulk replay that queued this attempt (trigger "replay"); null otherwise */
  @ApiProperty({ nullable: true, type: String, format: 'uuid' })
  replayId: string | null;
}

export class RecoverResultDto {
  @ApiProperty({ type: Number, description: 'events given a new PENDING attempt (each at most once)' })
  queued: number;

  @ApiProperty({
    type: Number,
    description:
      'events of the window still to recover: one call queues at most WEBHOOK_RECOVER_MAX (default 10,000); call again with the same window for the rest',
  })
  remaining: number;

  @ApiProperty({
    type: Number,
    description:
      'missed events of the window that can no longer be sent: raised WEBHOOK_MESSAGE_RETENTION ago or more, their body is gone. Always 0 without "missed" in include',
  })
  expired: number;
}

export class DeliveryPageDto {
  @ApiProperty({ type: [DeliveryDto] })
  items: DeliveryDto[];
  limit: number;
  offset: number;
  /** attempts matching the filter, counted on the (community, endpoint[, status]) index */
  total: number;
  hasMore: boolean;
}

/** One message (event) of an endpoint's log: its latest attempt's state and every attempt, newest first. */
export class MessageDto {
  /** the webhook-id a receiver sees, the same on every attempt */
  messageId: string;
  eventType: string;
  /** the id of the resource the event is about; null for events raised before subjects were recorded */
  @ApiProperty({ nullable: true, type: String })
  subject: string | null;
  /** the state of the latest attempt: SUCCESS, FAILED (no attempt left, or waiting for a retry: see nextAttemptAt) or PENDING */
  @ApiProperty({ enum: DeliveryStatus })
  status: DeliveryStatus;
  /** a probe of the test route */
  test: boolean;
  /** how many attempts so far */
  attemptCount: number;
  /** when the first attempt was written */
  firstAttemptAt: Date;
  /** when the latest attempt was written */
  lastAttemptAt: Date;
  /** when the latest attempt's request went out; null while it waits */
  @ApiProperty({ nullable: true, type: Date })
  lastSentAt: Date | null;
  /** when the waiting latest attempt is due; null once it is closed */
  @ApiProperty({ nullable: true, type: Date })
  nextAttemptAt: Date | null;
  @ApiProperty({ nullable: true, type: Number })
  lastResponseStatus: number | null;
  /** when the message's content was expunged on request; null while it is kept */
  @ApiProperty({ nullable: true, type: Date })
  expungedAt: Date | null;
  @ApiProperty({ type: [DeliveryDto] })
  attempts: DeliveryDto[];
}

export class ExpungedMessageDto {
  messageId: string;
  /** when the content was first expunged (a second expunge keeps the first time) */
  expungedAt: Date;
  /** attempts that were waiting to be sent and were closed FAILED, unsent */
  attemptsCancelled: number;
}

export class MessagePageDto {
  @ApiProperty({ type: [MessageDto] })
  items: MessageDto[];
  limit: number;
  offset: number;
  /** another page follows (messages are not counted: that would read the whole log) */
  hasMore: boolean;
}

export class EventTypeDto {
  name: string;
  description: string;
  subscribable: boolean;
  /** JSON Schema of the whole body a receiver gets for this event (also in the OpenAPI components) */
  @ApiProperty({ type: 'object', additionalProperties: true })
  schema: object;
  /** an example body */
  @ApiProperty({ type: 'object', additionalProperties: true })
  example: object;
}

export class EventTypesDto {
  /** the subscribable catalog */
  @ApiProperty({ type: [EventTypeDto] })
  items: EventTypeDto[];
  /** webhook.test: sent only by the test route, not subscribable */
  testEvent: EventTypeDto;
}

/**
 * The 500 of a failed test delivery: the error body (docs/product-decisions.md#1-responses-and-errors)
 * with the logged attempt as `data`.
 */
export class WebhookTestFailedBodyDto extends ErrorBodyDto {
  @ApiProperty({ type: DeliveryDto, description: 'the attempt as logged (status FAILED, with its error)' })
  data: DeliveryDto;
}

/**
 * An endpoint's figures for a bucket or a period: attempts whose outcome was recorded (test probes
 * included). Latency percentiles are estimates from fixed latency bins (docs/api.md#webhooks, "Figures").
 */
export class FiguresDto {
  attempts: number;
  succeeded: number;
  failed: number;
  /** succeeded / attempts (0–1); null without attempts */
  @ApiProperty({ nullable: true, type: 'number', minimum: 0, maximum: 1 })
  successRate: number | null;
  /** median latency in ms, estimated within its latency bin; null without a measured attempt */
  @ApiProperty({ nullable: true, type: 'integer' })
  p50Ms: number | null;
  /** 95th percentile latency in ms, estimated within its latency bin; null without a measured attempt */
  @ApiProperty({ nullable: true, type: 'integer' })
  p95Ms: number | null;
}

export class FiguresBucketDto extends FiguresDto {
  /** the bucket's first instant (a UTC hour); it lasts bucketSeconds */
  start: Date;
}

export class EndpointFiguresDto {
  @ApiProperty({ enum: FIGURE_PERIODS })
  period: FigurePeriod;
  /** each bucket's length in seconds */
  bucketSeconds: number;
  /** every bucket of the period, oldest first, ending with the current (partial) hour; empty ones with zeros */
  @ApiProperty({ type: [FiguresBucketDto] })
  buckets: FiguresBucketDto[];
  /** the whole period (percentiles from every bucket's bins added up) */
  totals: FiguresDto;
}
