import { Injectable } from '@nestjs/common';
import { MAX_PAGE_SIZE } from '../../common/pagination/page-query.dto';
import type { DeliveryStatus } from '../../generated/prisma/enums';
import { ISO } from '../../prisma/iso-text';
import { Prisma } from '../../generated/prisma/client';
import { PrismaService } from '../../prisma/prisma.service';
import type { EventBody } from '../events/event-body';
import {
  type DeliveryPageRow,
  type DeliveryRow,
  deliveryView,
  type DeliveryView,
  toDeliveryView,
} from './delivery-view';

import { latestEndedAttempt, responseStatusMatches } from './message-filters';

/** The filters of the message view (see messages). */
export interface MessagePageQuery {
  limit: number;
  offset: number;
  status?: DeliveryStatus;
  eventType?: string;
  messageId?: string;
  /** the event's subject */
  subject?: string;
  /** a code, a class or network: the latest ended attempt's answer (message-filters.ts) */
  responseStatus?: string;
  since?: Date;
  until?: Date;
}

/** One message (event) of the endpoint's log, its latest attempt's state, and every attempt of it. */
export interface MessageView {
  messageId: string;
  eventType: string;
  subject: string | null;
  status: DeliveryStatus;
  test: boolean;
  attemptCount: number;
  firstAttemptAt: Date | string;
  lastAttemptAt: Date | string;
  lastSentAt: Date | string | null;
  nextAttemptAt: Date | string | null;
  lastResponseStatus: number | null;
  expungedAt: Date | string | null;
  attempts: DeliveryView[];
}

export interface MessagePage {
  items: MessageView[];
  limit: number;
  offset: number;
  hasMore: boolean;
}

export interface DeliveryPageQuery {
  limit: number;
  offset: number;
  status?: DeliveryStatus;
}

export interface DeliveryPage {
  items: DeliveryView[];
  limit: number;
  offset: number;
  total: number;
  hasMore: boolean;
}

/**
 * The delivery log's reads of `webhook_deliveries` (the API's paged log; the endpoints' recent
 * outcomes are AttemptStatsStore's hourly figures). One of the stores of the table (src/modules/webhooks/worker/README.md, "State"); no
 * other code touches it.
 */
/** A page size as SQL text: only a whole number of 1 to MAX_PAGE_SIZE gets there. */
export function pageLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE)
    throw new Error(`page limit out of range: ${limit}`);
  return limit;
}

/** A row of the messages page's statement: an attempt of one of the page's messages, ISO timestamps. */
interface MessageAttemptRow extends DeliveryRow<string> {
  /** on the message's latest attempt only: every attempt of a message sent the same body */
  payload: EventBody | null;
  /** the same on every row: another page follows */
  has_more: boolean;
  subject: string | null;
}

/**
 * The messages page in one statement: `latest`, the latest attempt of each message of the page (and one
 * more, for `hasMore`), then every attempt of those messages, in the page's order and newest attempt
 * first, with the event body (read once per message). Planned per execution (not a named prepared
 * statement): which index serves `latest` depends on the filters' values. No filter, or status, since
 * or until: the (community, endpoint[, status], created_at) indexes, newest first; eventType: the
 * (endpoint, event_type, created_at) index, without which a type rare in the log read the endpoint's
 * attempts until a page of it turned up (bench/README.md#the-log-by-message-benchdelivery-messagesmjs);
 * messageId: the (message, endpoint, attempt) unique index, which also finds each message's attempts; subject:
 * the subject's messages from the partial (community, subject, message) index of attempt 1, each message's
 * attempts at the endpoint from the unique index.
 */
export function messagesStatement(
  communityId: string,
  endpointId: string,
  query: MessagePageQuery,
): Prisma.Sql {
  const limit = pageLimit(query.limit);
  const filters: Prisma.Sql[] = [];
  if (query.status) filters.push(Prisma.sql`AND d.status = ${query.status}::"DeliveryStatus"`);
  if (query.eventType) filters.push(Prisma.sql`AND d.event_type = ${query.eventType}`);
  if (query.messageId) filters.push(Prisma.sql`AND d.message_id = ${query.messageId}`);
  if (query.subject) {
    filters.push(Prisma.sql`AND d.message_id IN (SELECT s.message_id FROM webhook_deliveries s
                                                  WHERE s.community_id = ${communityId}::uuid AND s.attempt = 1
                                                    AND s.subject = ${query.subject} AND s.endpoint_id = ${endpointId}::uuid)`);
  }
  if (query.responseStatus) {
    filters.push(Prisma.sql`AND EXISTS (SELECT 1 FROM ${latestEndedAttempt('d')} AS ended
                                         WHERE ${responseStatusMatches('ended', query.responseStatus)})`);
  }
  if (query.since) filters.push(Prisma.sql`AND d.created_at >= ${query.since}`);
  if (query.until) filters.push(Prisma.sql`AND d.created_at < ${query.until}`);
  return Prisma.sql`
    WITH latest AS MATERIALIZED (
      SELECT d.message_id, d.created_at, d.id
        FROM webhook_deliveries d
       WHERE d.community_id = ${communityId}::uuid AND d.endpoint_id = ${endpointId}::uuid
         ${filters.length > 0 ? Prisma.join(filters, ' ') : Prisma.empty}
         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries n
                          WHERE n.endpoint_id = d.endpoint_id AND n.message_id = d.message_id
                            AND n.attempt > d.attempt)
       ORDER BY d.created_at DESC, d.id DESC
       LIMIT ${limit + 1} OFFSET ${query.offset})
    SELECT a.id::text AS id, a.endpoint_id::text AS endpoint_id, a.message_id, a.event_type, a.attempt,
           a.status::text AS status, a.response_status, a.response_body, a.duration_ms, a.error,
           ${Prisma.raw(ISO('a.created_at'))} AS created_at, ${Prisma.raw(ISO('a.updated_at'))} AS updated_at,
           ${Prisma.raw(ISO('a.next_attempt_at'))} AS next_attempt_at,
           ${Prisma.raw(ISO('a.started_at'))} AS started_at, a.is_test, a.request_id,
           ${Prisma.raw(ISO('a.expunged_at'))} AS expunged_at, a.subject, a.trigger, a.replay_id::text AS replay_id,
           CASE WHEN a.id = page.id THEN page.payload END AS payload,
           (SELECT count(*) FROM latest) > ${limit} AS has_more
      FROM (SELECT latest.*,
                   (SELECT o.payload FROM outbox_events o
                     WHERE o.message_id = latest.message_id AND o.community_id = ${communityId}::uuid) AS payload
              FROM latest ORDER BY created_at DESC, id DESC LIMIT ${limit}) AS page
      JOIN webhook_deliveries a
        ON a.endpoint_id = ${endpointId}::uuid AND a.message_id = page.message_id
       AND a.community_id = ${communityId}::uuid
     ORDER BY page.created_at DESC, page.id DESC, a.attempt DESC`;
}

@Injectable()
export class DeliveryLogStore {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * A page of an endpoint's attempts, newest first (ties broken by id), each with the event body it
   * sent (joined from the outbox by message id, after the page is cut), and `total`, in ONE named
   * prepared statement (PrismaService.preparedQuery): the delivery log of a busy endpoint is read
   * often, and the ORM's three queries and per-row Date parsing were most of its cost. The page comes from the
   * (community_id, endpoint_id[, status], created_at, id) indexes. `total` is never counted (slow
   * for an endpoint of millions of attempts): it is the sum of the counter rows that the table's
   * triggers keep exact in the same transaction as every insert, status change and delete (see the
   * migration delivery_status_counters). Timestamps are read as ISO text, and the sort key stays in
   * PostgreSQL (parsing it into a Date per row was a visible part of the route's CPU). Null: the community has
   * no such endpoint (checked in the same statement).
   */
  async page(
    communityId: string,
    endpointId: string,
    query: DeliveryPageQuery,
  ): Promise<DeliveryPage | null> {
    const status = query.status ? 'AND status = $4::"DeliveryStatus"' : '';
    // The plan is made once for every execution (force_generic_plan), so it must not depend on what a
    // parameter's value turns out to be. The limit is written into the statement (a validated integer of 1
    // to MAX_PAGE_SIZE: one statement per limit used), since as a parameter the plan assumes a tenth of the
    // endpoint's attempts are wanted; and each attempt's event is a subquery looked up by its message id,
    // since as a join it could become a hash join of the whole outbox.
    const limit = pageLimit(query.limit);
    const rows = await this.prisma.lagTolerantRows<DeliveryPageRow>(
      `${query.status ? 'delivery-page-by-status' : 'delivery-page'}:${limit}`,
      `
        SELECT item.id, item.message_id, item.event_type, item.attempt, item.status, item.response_status,
               item.response_body, item.duration_ms, item.error, item.created_at, item.updated_at,
               item.next_attempt_at, item.started_at, item.is_test, item.request_id, item.expunged_at, item.payload,
               item.trigger, item.replay_id, counter.total,
               counter.endpoint_found
          FROM (SELECT (SELECT coalesce(sum(value), 0) FROM webhook_delivery_counters
                         WHERE community_id = $1::uuid AND endpoint_id = $2::uuid ${status}) AS total,
                       EXISTS (SELECT 1 FROM webhook_endpoints
                                WHERE community_id = $1::uuid AND id = $2::uuid) AS endpoint_found) AS counter
          LEFT JOIN LATERAL (
            SELECT page.id::text AS id, page.message_id, page.event_type, page.attempt, page.status::text AS status,
                   page.response_status, page.response_body, page.duration_ms, page.error,
                   ${ISO('page.created_at')} AS created_at, ${ISO('page.updated_at')} AS updated_at,
                   ${ISO('page.next_attempt_at')} AS next_attempt_at, ${ISO('page.started_at')} AS started_at,
                   page.is_test, page.request_id, ${ISO('page.expunged_at')} AS expunged_at,
                   (SELECT o.payload FROM outbox_events o
                     WHERE o.message_id = page.message_id AND o.community_id = $1::uuid) AS payload,
                   page.trigger, page.replay_id::text AS replay_id,
                   page.created_at AS sort_at, page.id AS sort_id
              FROM (SELECT * FROM webhook_deliveries
                     WHERE community_id = $1::uuid AND endpoint_id = $2::uuid ${status}
                     ORDER BY created_at DESC, id DESC
                     LIMIT ${limit} OFFSET $3) AS page
          ) AS item ON true
         ORDER BY item.sort_at DESC, item.sort_id DESC`,
      [communityId, endpointId, query.offset, ...(query.status ? [query.status] : [])],
    );
    const first = rows[0];
    if (!first?.[20]) return null;
    const total = Number(first[19]);
    // past the end, the one row holds only total and endpoint_found
    const items: DeliveryView[] = first[0] === null ? [] : rows.map((row) => deliveryView(row, endpointId));
    return {
      items,
      limit: query.limit,
      offset: query.offset,
      total,
      hasMore: query.offset + items.length < total,
    };
  }

  /**
   * A page of the endpoint's messages (events), newest first by their latest attempt, each with every
   * attempt of it (newest first) and the state of the latest: the log grouped by message. Filters
   * apply to the latest attempt: `status` its state, `since`/`until` when it was written;
   * `eventType` and `messageId` the message. A message's latest attempt is the one no later attempt
   * follows, a probe of the (message, endpoint, attempt) unique index per row read. No total:
   * counting messages would read the whole log; `hasMore` says whether another page follows. Null: no
   * such endpoint.
   */
  async messages(
    communityId: string,
    endpointId: string,
    query: MessagePageQuery,
  ): Promise<MessagePage | null> {
    // on the pg pool, not through Prisma: its per-row work was most of the route's time
    const statement = messagesStatement(communityId, endpointId, query);
    const { rows } = await this.prisma.lagTolerantQuery<MessageAttemptRow>(
      undefined,
      statement.text,
      statement.values,
    );
    // an empty page: an endpoint with nothing (more) to show, or no such endpoint
    if (rows.length === 0) {
      const found = await this.prisma.lagTolerantQuery<{ found: boolean }>(
        undefined,
        'SELECT EXISTS (SELECT 1 FROM webhook_endpoints WHERE community_id = $1::uuid AND id = $2::uuid) AS found',
        [communityId, endpointId],
      );
      if (!found.rows[0].found) return null;
    }
    // the rows come grouped by message, in the page's order, the latest attempt first
    const items: MessageView[] = [];
    for (const row of rows) {
      const current = items[items.length - 1];
      if (current?.messageId === row.message_id) {
        const attempt = toDeliveryView(row, current.attempts[0].payload);
        current.attempts.push(attempt);
        current.firstAttemptAt = attempt.createdAt;
        // a retry of an attempt that was on the wire during an expunge is written after it, unmarked
        current.expungedAt ??= attempt.expungedAt;
        continue;
      }
      const attempt = toDeliveryView(row, row.payload);
      items.push({
        messageId: row.message_id,
        eventType: row.event_type,
        subject: row.subject,
        status: row.status,
        test: row.is_test,
        attemptCount: row.attempt,
        firstAttemptAt: row.created_at,
        lastAttemptAt: row.created_at,
        lastSentAt: row.started_at,
        nextAttemptAt: row.next_attempt_at,
        lastResponseStatus: row.response_status,
        expungedAt: row.expunged_at,
        attempts: [attempt],
      });
    }
    return {
      items,
      limit: query.limit,
      offset: query.offset,
      hasMore: rows[0]?.has_more ?? false,
    };
  }
}
