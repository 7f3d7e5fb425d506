import type { DeliveryStatus } from '../../generated/prisma/enums';
import type { EventBody } from '../events/event-body';

/**
 * A delivery attempt as the API shows it (docs/product-decisions.md#7-resources), with the event body that
 * was sent.
 */
export interface DeliveryView {
  id: string;
  endpointId: string;
  messageId: string;
  eventType: string;
  attempt: number;
  status: DeliveryStatus;
  responseStatus: number | null;
  responseBody: string | null;
  durationMs: number | null;
  error: string | null;
  /** a Date from Prisma, its ISO text from the page statement: the same in JSON */
  createdAt: Date | string;
  updatedAt: Date | string;
  nextAttemptAt: Date | string | null;
  /** when the request went out (the attempt's claim, just before its send); null while it waits */
  sentAt: Date | string | null;
  /** a probe of the test route (webhook.test, or an example of an event type) */
  test: boolean;
  /** the API request that raised the event */
  requestId: string | null;
  /** when the message's content was expunged on request (then payload and responseBody are null) */
  expungedAt: Date | string | null;
  /** the event body sent; null once pruned (WEBHOOK_MESSAGE_RETENTION after its last attempt) or expunged */
  payload: EventBody | null;
  /** what made this attempt (attemptTrigger) */
  trigger: AttemptTrigger;
  /** the bulk replay that queued it (trigger "replay"); null otherwise */
  replayId: string | null;
}

/** What made an attempt: its event (attempt 1), a scheduled retry, a resend, a recover, a bulk replay, the test route. */
export type AttemptTrigger = 'event' | 'retry' | 'resend' | 'recover' | 'replay' | 'test';

/**
 * The stored trigger ('resend', 'recover', 'replay': what a person asked for), or what the attempt itself says:
 * a probe of the test route, the relay's first attempt, or a retry scheduled after a failure.
 */
export function attemptTrigger(stored: string | null, isTest: boolean, attempt: number): AttemptTrigger {
  if (stored) return stored as AttemptTrigger;
  if (isTest) return 'test';
  return attempt === 1 ? 'event' : 'retry';
}

/**
 * An attempt row as a statement that returns DELIVERY_COLUMNS reads it: its timestamps as Dates, or as
 * ISO text (`Time` = string) from a statement that writes them with ISO().
 */
export interface DeliveryRow<Time = Date> {
  id: string;
  endpoint_id: string;
  message_id: string;
  event_type: string;
  attempt: number;
  status: DeliveryStatus;
  response_status: number | null;
  response_body: string | null;
  duration_ms: number | null;
  error: string | null;
  created_at: Time;
  updated_at: Time;
  next_attempt_at: Time | null;
  started_at: Time | null;
  is_test: boolean;
  request_id: string | null;
  expunged_at: Time | null;
  trigger: string | null;
  replay_id: string | null;
}

/** The columns of a DeliveryRow, for a statement's SELECT or RETURNING list. */
export const DELIVERY_COLUMNS = `id, endpoint_id, message_id, event_type, attempt, status, response_status, response_body,
  duration_ms, error, created_at, updated_at, next_attempt_at, started_at, is_test, request_id, expunged_at, trigger,
  replay_id`;

/** An attempt row as the API shows it, with the event body it sent (or sends). */
export function toDeliveryView(row: DeliveryRow<Date | string>, payload: EventBody | null): DeliveryView {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    messageId: row.message_id,
    eventType: row.event_type,
    attempt: row.attempt,
    status: row.status,
    responseStatus: row.response_status,
    responseBody: row.response_body,
    durationMs: row.duration_ms,
    error: row.error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    nextAttemptAt: row.next_attempt_at,
    // a PENDING row's claim is the send under way; a waiting one has none
    sentAt: row.started_at,
    test: row.is_test,
    requestId: row.request_id,
    expungedAt: row.expunged_at,
    payload,
    trigger: attemptTrigger(row.trigger, row.is_test, row.attempt),
    replayId: row.replay_id,
  };
}

/**
 * A row of the delivery log's page statement, as an array (pg's rowMode 'array': no object built per
 * row by field name): an attempt (all null past the end), then the total and whether the endpoint
 * exists. The endpoint's id is the caller's, not read back.
 */
export type DeliveryPageRow = [
  id: string | null,
  messageId: string | null,
  eventType: string | null,
  attempt: number | null,
  status: DeliveryStatus | null,
  responseStatus: number | null,
  responseBody: string | null,
  durationMs: number | null,
  error: string | null,
  createdAt: string | null,
  updatedAt: string | null,
  nextAttemptAt: string | null,
  sentAt: string | null,
  test: boolean | null,
  requestId: string | null,
  expungedAt: string | null,
  payload: EventBody | null,
  trigger: string | null,
  replayId: string | null,
  total: string,
  endpointFound: boolean,
];

/**
 * One attempt of the delivery log's page row, field by field: the hot read's own mapper (of an
 * array row, where toDeliveryView maps an object row; a rest spread was a visible part of the route's CPU).
 */
export function deliveryView(row: DeliveryPageRow, endpointId: string): DeliveryView {
  return {
    id: row[0]!,
    endpointId,
    messageId: row[1]!,
    eventType: row[2]!,
    attempt: row[3]!,
    status: row[4]!,
    responseStatus: row[5],
    responseBody: row[6],
    durationMs: row[7],
    error: row[8],
    createdAt: row[9]!,
    updatedAt: row[10]!,
    nextAttemptAt: row[11],
    sentAt: row[12],
    test: row[13]!,
    requestId: row[14],
    expungedAt: row[15],
    payload: row[16],
    trigger: attemptTrigger(row[17], row[13]!, row[3]!),
    replayId: row[18],
  };
}
