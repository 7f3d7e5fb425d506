import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Errors } from '../../common/errors/app-error';
import { Prisma } from '../../generated/prisma/client';
import { PrismaService } from '../../prisma/prisma.service';
import type { EventBody } from '../events/event-body';
import type { SendResult } from './core/delivery/webhook-sender.service';
import type { AttemptKey } from './core/delivery-job';
import { DELIVERY_COLUMNS, DeliveryRow, DeliveryView, toDeliveryView } from './delivery-view';

/** What a re-sent attempt needs to become a queue job: the event body comes from the outbox. */
export interface ResentAttempt extends DeliveryView {
  outboxId: string;
  payload: EventBody;
}

interface ResentRow extends DeliveryRow {
  outbox_id: bigint;
  payload: EventBody;
}

function toResent(row: ResentRow): ResentAttempt {
  return { ...toDeliveryView(row, row.payload), payload: row.payload, outboxId: String(row.outbox_id) };
}

/** Recover's window of attempt creation times, [since, until). */
export interface RecoverWindow {
  since: Date;
  until: Date;
}

type Nullable<T> = { [K in keyof T]: T[K] | null };

/**
 * The attempts (alias `d`) recover re-sends: FAILED, created in the window, and the latest attempt
 * of their event on the endpoint (read from the (community, endpoint, status, created_at) index).
 */
function recoverable(communityId: string, endpointId: string, window: RecoverWindow): Prisma.Sql {
  return Prisma.sql`d.community_id = ${communityId}::uuid AND d.endpoint_id = ${endpointId}::uuid
        AND d.status = 'FAILED' AND d.created_at >= ${window.since} AND d.created_at < ${window.until}
        AND NOT d.is_test
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries n
                        WHERE n.endpoint_id = d.endpoint_id AND n.message_id = d.message_id
                          AND n.attempt > d.attempt)`;
}

/**
 * The missed events (alias `m`, joined to their outbox row `o`) recover's `missed` can still send: of
 * the endpoint, raised in the window and less than the message retention ago.
 */
function missedLive(
  communityId: string,
  endpointId: string,
  window: RecoverWindow,
  retentionMs: number,
): Prisma.Sql {
  return Prisma.sql`m.community_id = ${communityId}::uuid AND m.endpoint_id = ${endpointId}::uuid
        AND m.raised_at >= ${window.since} AND m.raised_at < ${window.until}
        AND m.raised_at > now() - ${retentionMs} * interval '1 millisecond'`;
}

const RETURNED = Prisma.raw(DELIVERY_COLUMNS);

/**
 * The attempts a person asks for, on `webhook_deliveries`: a resend, a recover of failed or missed
 * ones, the test route's probe. Also the owner of `webhook_missed_events` (the relay writes them and
 * the outbox pruner forgets them, in worker/outbox.store.ts), which only recover reads. Every statement is scoped by community AND endpoint; a resent or recovered
 * attempt is written PENDING and due now, so that if the enqueue that follows is lost, the sweep
 * still sends it. One of the stores of the table (src/modules/webhooks/worker/README.md, "State");
 * no other code touches it.
 */
@Injectable()
export class RequestedAttemptsStore {
  constructor(private readonly prisma: PrismaService) {}

  /** The event a delivery belongs to, and whether its body is still stored; null: no such delivery here. */
  async findResendSource(
    communityId: string,
    endpointId: string,
    deliveryId: string,
  ): Promise<{ messageId: string; bodyStored: boolean; expunged: boolean } | null> {
    const rows = await this.prisma.$queryRaw<
      { message_id: string; body_stored: boolean; expunged: boolean }[]
    >`
    SELECT d.message_id, d.expunged_at IS NOT NULL AS expunged,
           -- a test delivery keeps its body for the log, but is sent again through the test route
           NOT d.is_test
             AND EXISTS (SELECT 1 FROM outbox_events o
                         WHERE o.message_id = d.message_id AND o.community_id = d.community_id) AS body_stored
    FROM webhook_deliveries d
    WHERE d.community_id = ${communityId}::uuid AND d.endpoint_id = ${endpointId}::uuid
      AND d.id = ${deliveryId}::uuid`;
    return rows[0]
      ? { messageId: rows[0].message_id, bodyStored: rows[0].body_stored, expunged: rows[0].expunged }
      : null;
  }

  /**
   * Writes the next attempt of (messageId, endpoint): one higher than the highest so far. Two
   * concurrent resends compute the same number; the unique key lets one win and the other gets
   * null (the caller tries again).
   */
  async insertResendAttempt(
    communityId: string,
    endpointId: string,
    messageId: string,
  ): Promise<ResentAttempt | null> {
    const rows = await this.prisma.$queryRaw<ResentRow[]>`
    WITH event AS (
      SELECT o.id, o.event_type, o.payload, o.subject FROM outbox_events o
      WHERE o.message_id = ${messageId} AND o.community_id = ${communityId}::uuid
    ), inserted AS (
      INSERT INTO webhook_deliveries
        (id, community_id, endpoint_id, message_id, event_type, attempt, status, next_attempt_at, updated_at, request_id,
         traceparent, subject, trigger)
      SELECT ${randomUUID()}::uuid, ${communityId}::uuid, ${endpointId}::uuid, ${messageId}, event.event_type,
             (SELECT max(d.attempt) FROM webhook_deliveries d
              WHERE d.endpoint_id = ${endpointId}::uuid AND d.message_id = ${messageId}) + 1,
             'PENDING', now(), now(),
             latest.request_id, latest.traceparent, event.subject, 'resend'
      FROM event
      LEFT JOIN LATERAL (SELECT d.request_id, d.traceparent FROM webhook_deliveries d
                         WHERE d.endpoint_id = ${endpointId}::uuid AND d.message_id = ${messageId}
                         ORDER BY d.attempt DESC LIMIT 1) latest ON true
      ON CONFLICT (message_id, endpoint_id, attempt) DO NOTHING
      RETURNING ${RETURNED}
    )
    SELECT i.*, event.id AS outbox_id, event.payload FROM inserted i CROSS JOIN event`;
    return rows[0] ? toResent(rows[0]) : null;
  }

  /**
   * Recover, one page: for up to `page.limit` events of the endpoint whose LATEST attempt is FAILED
   * and was created in [since, until), oldest attempt first and after `page.after` (the `last` of
   * the previous page), writes that attempt + 1 as PENDING. An event that already has a newer attempt
   * (a PENDING one from an earlier recover, a scheduled retry, a resend) is not touched, so calling
   * recover twice queues each event once, and two calls at once queue it once (the unique key). Events
   * whose body is no longer stored cannot be sent again and are left out.
   *
   * `examined` counts the events the page took (less than the limit: there are no more); `last` is
   * where the next page starts.
   */
  async insertRecoverAttempts(
    communityId: string,
    endpointId: string,
    window: RecoverWindow,
    page: { limit: number; after: string | null },
  ): Promise<{ attempts: ResentAttempt[]; examined: number; last: string | null }> {
    const after = page.after
      ? Prisma.sql`AND (d.created_at, d.id) > (SELECT a.created_at, a.id FROM webhook_deliveries a
                                               WHERE a.id = ${page.after}::uuid)`
      : Prisma.empty;
    const rows = await this.prisma.$queryRaw<(Nullable<ResentRow> & { source_id: string })[]>`
    WITH failed AS (
      SELECT d.id AS source_id, d.created_at AS source_created_at, d.message_id, d.event_type, d.attempt,
             d.request_id, d.traceparent, d.subject, o.id AS outbox_id, o.payload
      FROM webhook_deliveries d
      JOIN outbox_events o ON o.message_id = d.message_id AND o.community_id = d.community_id
      WHERE ${recoverable(communityId, endpointId, window)} ${after}
      ORDER BY d.created_at, d.id
      LIMIT ${page.limit}
    ), inserted AS (
      INSERT INTO webhook_deliveries
        (id, community_id, endpoint_id, message_id, event_type, attempt, status, next_attempt_at, updated_at, request_id,
         traceparent, subject, trigger)
      SELECT gen_random_uuid(), ${communityId}::uuid, ${endpointId}::uuid, f.message_id, f.event_type,
             f.attempt + 1, 'PENDING', now(), now(), f.request_id, f.traceparent, f.subject, 'recover'
      FROM failed f
      ON CONFLICT (message_id, endpoint_id, attempt) DO NOTHING
      RETURNING ${RETURNED}
    )
    -- every event the page took, with its new attempt (none when a concurrent call wrote it first)
    SELECT i.*, f.outbox_id, f.payload, f.source_id
    FROM failed f LEFT JOIN inserted i ON i.message_id = f.message_id
    ORDER BY f.source_created_at, f.source_id`;
    return {
      attempts: rows.filter((row): row is ResentRow & { source_id: string } => row.id !== null).map(toResent),
      examined: rows.length,
      last: rows.at(-1)?.source_id ?? null,
    };
  }

  /** How many events recover would still queue in the window (see insertRecoverAttempts). */
  async countRecoverable(communityId: string, endpointId: string, window: RecoverWindow): Promise<number> {
    const rows = await this.prisma.$queryRaw<{ count: number }[]>`
      SELECT count(*)::int AS count
      FROM webhook_deliveries d
      JOIN outbox_events o ON o.message_id = d.message_id AND o.community_id = d.community_id
      WHERE ${recoverable(communityId, endpointId, window)}`;
    return rows[0]?.count ?? 0;
  }

  /**
   * Recover's `missed`, one page: takes up to `page.limit` of the endpoint's missed events raised in
   * [since, until) and less than `retentionMs` ago whose body is stored, in outbox order, deletes them
   * and writes attempt 1 of each PENDING, due now, in the same statement. A row taken once is gone, so
   * a second call finds nothing, and two calls at once split the rows (SKIP LOCKED); an event that
   * somehow already has its attempt 1 keeps it and is not queued again.
   *
   * `examined` counts the events the page took (less than the limit: there are no more).
   */
  async takeMissedAttempts(
    communityId: string,
    endpointId: string,
    window: RecoverWindow,
    retentionMs: number,
    limit: number,
  ): Promise<{ attempts: ResentAttempt[]; examined: number }> {
    const rows = await this.prisma.$queryRaw<Nullable<ResentRow>[]>`
    WITH picked AS (
      SELECT m.outbox_id FROM webhook_missed_events m
      JOIN outbox_events o ON o.id = m.outbox_id AND o.community_id = m.community_id
      WHERE ${missedLive(communityId, endpointId, window, retentionMs)}
      ORDER BY m.outbox_id
      LIMIT ${limit}
      FOR UPDATE OF m SKIP LOCKED
    ), taken AS (
      DELETE FROM webhook_missed_events m USING picked p
      WHERE m.community_id = ${communityId}::uuid AND m.endpoint_id = ${endpointId}::uuid
        AND m.outbox_id = p.outbox_id
      RETURNING m.outbox_id
    ), inserted AS (
      INSERT INTO webhook_deliveries
        (id, community_id, endpoint_id, message_id, event_type, attempt, status, next_attempt_at, updated_at, request_id,
         traceparent, subject, trigger)
      SELECT gen_random_uuid(), ${communityId}::uuid, ${endpointId}::uuid, o.message_id, o.event_type,
             1, 'PENDING', now(), now(), o.request_id, o.traceparent, o.subject, 'recover'
      FROM taken t JOIN outbox_events o ON o.id = t.outbox_id
      ON CONFLICT (message_id, endpoint_id, attempt) DO NOTHING
      RETURNING ${RETURNED}
    )
    -- every event the page took, in outbox order, with its attempt (none when it had one already)
    SELECT i.*, o.id AS outbox_id, o.payload
    FROM taken t JOIN outbox_events o ON o.id = t.outbox_id
    LEFT JOIN inserted i ON i.message_id = o.message_id
    ORDER BY o.id`;
    return {
      attempts: rows.filter((row): row is ResentRow => row.id !== null).map(toResent),
      examined: rows.length,
    };
  }

  /**
   * The endpoint's missed events raised in [since, until): how many recover can still send, and how
   * many it cannot any more (raised `retentionMs` ago or more, or their body is gone).
   */
  async countMissed(
    communityId: string,
    endpointId: string,
    window: RecoverWindow,
    retentionMs: number,
  ): Promise<{ recoverable: number; expired: number }> {
    const [row] = await this.prisma.$queryRaw<{ recoverable: number; expired: number }[]>`
      SELECT count(*) FILTER (WHERE live)::int AS recoverable, count(*) FILTER (WHERE NOT live)::int AS expired
      FROM (SELECT m.raised_at > now() - ${retentionMs} * interval '1 millisecond'
                   AND EXISTS (SELECT 1 FROM outbox_events o
                               WHERE o.id = m.outbox_id AND o.community_id = m.community_id) AS live
            FROM webhook_missed_events m
            WHERE m.community_id = ${communityId}::uuid AND m.endpoint_id = ${endpointId}::uuid
              AND m.raised_at >= ${window.since} AND m.raised_at < ${window.until}) missed`;
    return row;
  }

  /**
   * The test route's attempt, recorded claimed (PENDING, started now) before it is sent. Its event
   * body is kept in the outbox, already relayed (the relay never sends it), so the delivery log
   * shows what was sent as for any other event.
   */
  async startTest(
    key: AttemptKey,
    body: EventBody,
    raisedBy: { requestId: string | null; traceparent: string | null },
  ): Promise<string> {
    const id = randomUUID();
    const { requestId, traceparent } = raisedBy;
    await this.prisma.$executeRaw`
      WITH body AS (
        INSERT INTO outbox_events
          (community_id, message_id, event_type, payload, relayed_at, request_id, traceparent, subject)
        VALUES (${key.communityId}::uuid, ${key.messageId}, ${key.eventType}, ${JSON.stringify(body)}::jsonb, now(),
                ${requestId}, ${traceparent}, ${body.subject}::text)
      )
      INSERT INTO webhook_deliveries
        (id, community_id, endpoint_id, message_id, event_type, attempt, status, started_at, request_id, traceparent,
         is_test, updated_at, subject)
      VALUES (${id}::uuid, ${key.communityId}::uuid, ${key.endpointId}::uuid, ${key.messageId}, ${key.eventType},
              ${key.attempt}, 'PENDING', now(), ${requestId}, ${traceparent}, true, now(), ${body.subject}::text)`;
    return id;
  }

  /** Records the test attempt's outcome and returns it as the API shows it. */
  async finishTest(
    id: string,
    communityId: string,
    result: SendResult,
    payload: EventBody,
  ): Promise<DeliveryView> {
    // a probe is a real request to the endpoint: it counts in the endpoint's hourly figures, in this statement
    const [row] = await this.prisma.$queryRaw<DeliveryRow[]>`
      WITH closed AS (
        UPDATE webhook_deliveries
        SET status = ${result.ok ? 'SUCCESS' : 'FAILED'}::"DeliveryStatus", response_status = ${result.status}::int,
            response_body = ${result.responseBody}::text, duration_ms = ${result.durationMs}::int,
            error = ${result.error}::text, next_attempt_at = NULL, updated_at = now()
        WHERE community_id = ${communityId}::uuid AND id = ${id}::uuid
        RETURNING ${RETURNED}, community_id
      ), counted AS (
        SELECT webhook_count_attempts(array_agg(community_id), array_agg(endpoint_id), array_agg(status = 'SUCCESS'),
                                      array_agg(duration_ms))
        FROM closed
      )
      SELECT ${RETURNED} FROM closed, counted`;
    // the endpoint (and with it the attempt) was deleted while the probe was sent
    if (!row) throw Errors.notFound('Webhook endpoint');
    return toDeliveryView(row, payload);
  }
}
