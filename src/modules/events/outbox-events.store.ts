import { Injectable } from '@nestjs/common';
import type { Prisma } from '../../generated/prisma/client';
import { PrismaService, type Tx } from '../../prisma/prisma.service';

/**
 * The API's side of `outbox_events`: events are appended inside the caller's transaction. The
 * worker's side (relay, prune, lag) is WorkerOutboxStore, whose statements move rows between this
 * table and webhook_deliveries in one statement each.
 */
/**
 * One data-modifying statement of another table's store that RETURNS the changed row as the API answers
 * it (camelCase keys, instants as ISO text), with its parameters numbered from $1.
 */
export interface ChangeStatement<Row> {
  /** the prepared statement's name, unique per statement text */
  name: string;
  text: string;
  values: unknown[];
  /**
   * Common table expressions the change reads (`name AS (SELECT ...)`, comma-separated), written at the
   * statement's top level, before the change: a data-modifying CTE cannot have a WITH of its own.
   */
  ctes?: string;
  /** the row's type, for the caller (never read) */
  readonly row?: Row;
}

/** The event a change raises, all but its data, which is the changed row under `dataKey`. */
export interface ChangeEvent {
  communityId: string;
  messageId: string;
  eventType: string;
  timestamp: string;
  requestId: string | null;
  /** the request's trace context (src/tracing/tracer.ts); null when tracing is off */
  traceparent: string | null;
  dataKey: string;
  /** where the subject sits in the data (the event definition's `subject`) */
  subjectPath: readonly string[];
}

@Injectable()
export class OutboxEventsStore {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * A change and the event it raises in ONE statement: the change as a data-modifying CTE, the event
   * appended from the row it returns (`{..., data: {[dataKey]: row}}`, built by PostgreSQL from the row
   * itself), the row answered. A single statement is atomic, so the change never commits without its
   * event or the reverse, without an interactive transaction's round trips (BEGIN, each statement,
   * COMMIT). Named on the shared pool, so each connection parses it once. Undefined when the change
   * returned no row (nothing changed, no event).
   */
  async appendWithChange<Row>(change: ChangeStatement<Row>, event: ChangeEvent): Promise<Row | undefined> {
    const n = change.values.length;
    const text = `WITH ${change.ctes ? `${change.ctes},` : ''} changed AS (${change.text}),
      appended AS (
        INSERT INTO outbox_events (community_id, message_id, event_type, payload, request_id, traceparent, subject)
        SELECT $${n + 1}::uuid, $${n + 2}, $${n + 3},
               jsonb_build_object('id', $${n + 2}::text, 'type', $${n + 3}::text, 'timestamp', $${n + 4}::text,
                                  'communityId', $${n + 5}::text, 'subject', event.subject, 'data', event.data),
               $${n + 7}::text, $${n + 8}::text, event.subject
          FROM changed,
               LATERAL (SELECT jsonb_build_object($${n + 6}::text, to_jsonb(changed)) AS data) AS built,
               LATERAL (SELECT coalesce(built.data #>> $${n + 9}::text[], $${n + 5}::text) AS subject, built.data) AS event)
      SELECT * FROM changed`;
    const { rows } = await this.prisma.pool.query<Row & object>({
      name: this.prisma.statementName(`${change.name}+event`),
      text,
      values: [
        ...change.values,
        event.communityId,
        event.messageId,
        event.eventType,
        event.timestamp,
        event.communityId,
        event.dataKey,
        event.requestId,
        event.traceparent,
        event.subjectPath,
      ],
    });
    return rows[0];
  }
  async append(
    tx: Tx,
    event: {
      communityId: string;
      messageId: string;
      eventType: string;
      subject: string;
      payload: Prisma.InputJsonValue;
      requestId: string | null;
      traceparent: string | null;
    },
  ): Promise<void> {
    await tx.outboxEvent.create({ data: event });
  }

  /**
   * Set-based variant for bulk changes: one INSERT … SELECT FROM unnest for all events, in the
   * order given (Prisma's createMany builds a statement per call shape and is far slower cold).
   */
  async appendMany(
    tx: Tx,
    events: {
      communityId: string;
      eventType: string;
      messageIds: string[];
      subjects: string[];
      payloads: string[];
      requestId: string | null;
      traceparent: string | null;
    },
  ): Promise<void> {
    await tx.$executeRaw`
      INSERT INTO outbox_events (community_id, message_id, event_type, payload, request_id, traceparent, subject)
      SELECT ${events.communityId}::uuid, e.message_id, ${events.eventType}, e.payload::jsonb, ${events.requestId}::text,
             ${events.traceparent}::text, e.subject
        FROM unnest(${events.messageIds}::text[], ${events.payloads}::text[], ${events.subjects}::text[])
             WITH ORDINALITY AS e(message_id, payload, subject, ord)
       ORDER BY e.ord`;
  }
}
