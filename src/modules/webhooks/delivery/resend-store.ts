import { randomUUID } from 'node:crypto';
import type { PrismaService } from '../../../prisma/prisma.service';
import type { EventBody } from '../../events/event-body';
import type { DeliveryView } from './delivery-log.service';

/**
 * The SQL of resend and recover (issue 10 §5), kept together so that it can move into the
 * deliveries store as it is. Every statement is scoped by community AND endpoint; the new attempt
 * is written PENDING and due now (next_attempt_at = now()), so that if the enqueue that follows
 * is lost, the durable schedule's sweep still sends it.
 */

/** What a re-sent attempt needs to become a queue job: the event body comes from the outbox. */
export interface ResentAttempt extends DeliveryView {
  outboxId: string;
  payload: EventBody;
}

interface ResentRow {
  id: string;
  endpoint_id: string;
  message_id: string;
  event_type: string;
  attempt: number;
  status: DeliveryView['status'];
  created_at: Date;
  updated_at: Date;
  next_attempt_at: Date | null;
  request_id: string | null;
  outbox_id: bigint;
  payload: EventBody;
}

function toResent(row: ResentRow): ResentAttempt {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    messageId: row.message_id,
    eventType: row.event_type,
    attempt: row.attempt,
    status: row.status,
    responseStatus: null,
    responseBody: null,
    durationMs: null,
    error: null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    nextAttemptAt: row.next_attempt_at,
    requestId: row.request_id,
    outboxId: String(row.outbox_id),
    payload: row.payload,
  };
}

/** The event a delivery belongs to, and whether its body is still stored; null: no such delivery here. */
export async function findResendSource(
  prisma: PrismaService,
  communityId: string,
  endpointId: string,
  deliveryId: string,
): Promise<{ messageId: string; bodyStored: boolean } | null> {
  const rows = await prisma.$queryRaw<{ message_id: string; body_stored: boolean }[]>`
    SELECT d.message_id,
           -- a test delivery keeps its body for the log, but is sent again through the test route
           d.event_type <> 'webhook.test'
             AND EXISTS (SELECT 1 FROM outbox_events o
                         WHERE o.message_id = d.message_id AND o.community_id = d.community_id) AS body_stored
    FROM webhook_deliveries d
    WHERE d.community_id = ${communityId}::uuid AND d.endpoint_id = ${endpointId}::uuid
      AND d.id = ${deliveryId}::uuid`;
  return rows[0] ? { messageId: rows[0].message_id, bodyStored: rows[0].body_stored } : null;
}

/**
 * Writes the next attempt of (messageId, endpoint): one higher than the highest so far. Two
 * concurrent resends compute the same number; the unique key lets one win and the other gets
 * null (the caller tries again).
 */
export async function insertResendAttempt(
  prisma: PrismaService,
  communityId: string,
  endpointId: string,
  messageId: string,
): Promise<ResentAttempt | null> {
  const rows = await prisma.$queryRaw<ResentRow[]>`
    WITH event AS (
      SELECT o.id, o.event_type, o.payload FROM outbox_events o
      WHERE o.message_id = ${messageId} AND o.community_id = ${communityId}::uuid
    ), inserted AS (
      INSERT INTO webhook_deliveries
        (id, community_id, endpoint_id, message_id, event_type, attempt, status, next_attempt_at, updated_at, request_id)
      SELECT ${randomUUID()}::uuid, ${communityId}::uuid, ${endpointId}::uuid, ${messageId}, event.event_type,
             (SELECT max(d.attempt) FROM webhook_deliveries d
              WHERE d.endpoint_id = ${endpointId}::uuid AND d.message_id = ${messageId}) + 1,
             'PENDING', now(), now(),
             (SELECT d.request_id FROM webhook_deliveries d
              WHERE d.endpoint_id = ${endpointId}::uuid AND d.message_id = ${messageId}
              ORDER BY d.attempt DESC LIMIT 1)
      FROM event
      ON CONFLICT (endpoint_id, message_id, attempt) DO NOTHING
      RETURNING id, endpoint_id, message_id, event_type, attempt, status, created_at, updated_at, next_attempt_at, request_id
    )
    SELECT i.*, event.id AS outbox_id, event.payload FROM inserted i CROSS JOIN event`;
  return rows[0] ? toResent(rows[0]) : null;
}

/**
 * Recover: for every event of the endpoint whose LATEST attempt is FAILED and was created in
 * [since, until), writes that attempt + 1 as PENDING, in one statement. An event that already has
 * a newer attempt (a PENDING one from an earlier recover, a scheduled retry, a resend) is not
 * touched, so calling recover twice queues each event once. Events whose body is no longer
 * stored cannot be sent again and are left out.
 */
export async function insertRecoverAttempts(
  prisma: PrismaService,
  communityId: string,
  endpointId: string,
  since: Date,
  until: Date,
): Promise<ResentAttempt[]> {
  const rows = await prisma.$queryRaw<ResentRow[]>`
    WITH failed AS (
      SELECT d.message_id, d.event_type, d.attempt, d.request_id, o.id AS outbox_id, o.payload
      FROM webhook_deliveries d
      JOIN outbox_events o ON o.message_id = d.message_id AND o.community_id = d.community_id
      WHERE d.community_id = ${communityId}::uuid AND d.endpoint_id = ${endpointId}::uuid
        AND d.status = 'FAILED' AND d.created_at >= ${since} AND d.created_at < ${until}
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries n
                        WHERE n.endpoint_id = d.endpoint_id AND n.message_id = d.message_id
                          AND n.attempt > d.attempt)
    ), inserted AS (
      INSERT INTO webhook_deliveries
        (id, community_id, endpoint_id, message_id, event_type, attempt, status, next_attempt_at, updated_at, request_id)
      SELECT gen_random_uuid(), ${communityId}::uuid, ${endpointId}::uuid, f.message_id, f.event_type,
             f.attempt + 1, 'PENDING', now(), now(), f.request_id
      FROM failed f
      ON CONFLICT (endpoint_id, message_id, attempt) DO NOTHING
      RETURNING id, endpoint_id, message_id, event_type, attempt, status, created_at, updated_at, next_attempt_at, request_id
    )
    SELECT i.*, f.outbox_id, f.payload FROM inserted i JOIN failed f ON f.message_id = i.message_id
    ORDER BY i.message_id`;
  return rows.map(toResent);
}
