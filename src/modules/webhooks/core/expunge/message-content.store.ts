import { Injectable } from '@nestjs/common';
import { PrismaService } from '../../../../prisma/prisma.service';

/** What an expunge did to a set of messages of one community. */
export interface ExpungedMessages {
  /** the messages found (an event in the outbox, or attempts in the log), each with when it was expunged */
  expungedAt: Map<string, Date>;
  /** attempts that were waiting to be sent and were closed unsent */
  attemptsCancelled: number;
}

/** Why a waiting attempt of an expunged message ends unsent (the log's `error`). */
export const EXPUNGED_ERROR = 'message content expunged';

/**
 * The erasure of messages' content (docs/api.md#expunge-a-messages-content): every place a message's
 * body or its receivers' answers are kept, `outbox_events` (the body), `webhook_missed_events` (what
 * recover could still send) and `webhook_deliveries` (the answers), in one transaction. The attempt
 * rows stay, marked expunged: the log keeps its record of what was sent and when.
 */
@Injectable()
export class MessageContentStore {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Three statements, in this order: the event's row goes first, which waits for a relay that holds
   * it, so the attempts that relay writes are committed before the third statement (a new snapshot
   * under READ COMMITTED) reads the attempts; an event deleted before the relay takes it is never
   * relayed. Attempts waiting to be sent are closed FAILED, unsent; one already on the wire finishes
   * (its answer is recorded; expunging again clears it).
   */
  async expunge(communityId: string, messageIds: readonly string[]): Promise<ExpungedMessages> {
    if (messageIds.length === 0) return { expungedAt: new Map(), attemptsCancelled: 0 };
    return this.prisma.$transaction(async (tx) => {
      const events = await tx.$queryRaw<{ id: bigint; message_id: string; now: Date }[]>`
        DELETE FROM outbox_events
         WHERE community_id = ${communityId}::uuid AND message_id = ANY(${messageIds}::text[])
        RETURNING id, message_id, now() AS now`;
      if (events.length > 0)
        await tx.$executeRaw`
          DELETE FROM webhook_missed_events
           WHERE community_id = ${communityId}::uuid AND outbox_id = ANY(${events.map((e) => e.id)}::bigint[])`;
      // the rows locked first, so whether each one still waits is read from its latest version
      const attempts = await tx.$queryRaw<{ message_id: string; expunged_at: Date; cancelled: number }[]>`
        WITH target AS (
          SELECT id, status = 'PENDING' AND started_at IS NULL AS waiting
            FROM webhook_deliveries
           WHERE community_id = ${communityId}::uuid AND message_id = ANY(${messageIds}::text[])
             FOR UPDATE
        ), changed AS (
          UPDATE webhook_deliveries d
             SET expunged_at = coalesce(d.expunged_at, now()), response_body = NULL, updated_at = now(),
                 status = CASE WHEN t.waiting THEN 'FAILED'::"DeliveryStatus" ELSE d.status END,
                 error = CASE WHEN t.waiting THEN ${EXPUNGED_ERROR} ELSE d.error END,
                 next_attempt_at = CASE WHEN t.waiting THEN NULL ELSE d.next_attempt_at END
            FROM target t
           WHERE d.id = t.id AND d.community_id = ${communityId}::uuid
          RETURNING d.message_id, d.expunged_at, t.waiting
        )
        SELECT message_id, min(expunged_at) AS expunged_at, count(*) FILTER (WHERE waiting)::int AS cancelled
          FROM changed GROUP BY message_id`;
      const expungedAt = new Map<string, Date>();
      for (const event of events) expungedAt.set(event.message_id, event.now);
      let attemptsCancelled = 0;
      for (const row of attempts) {
        expungedAt.set(row.message_id, row.expunged_at);
        attemptsCancelled += row.cancelled;
      }
      return { expungedAt, attemptsCancelled };
    });
  }

  /**
   * Up to `limit` messages of the community raised before `before` and not expunged yet, in message id
   * order (a ULID: the order they were raised) after `after`: those whose event is still in the
   * outbox, and those the outbox pruner already forgot whose first attempts are still in the log.
   */
  async raisedBefore(communityId: string, before: Date, after: string, limit: number): Promise<string[]> {
    const rows = await this.prisma.$queryRaw<{ message_id: string }[]>`
      SELECT message_id FROM (
        SELECT message_id FROM outbox_events
         WHERE community_id = ${communityId}::uuid AND created_at < ${before} AND message_id > ${after}
        UNION
        SELECT message_id FROM webhook_deliveries
         WHERE community_id = ${communityId}::uuid AND attempt = 1 AND created_at < ${before}
           AND expunged_at IS NULL AND message_id > ${after}
      ) raised
      ORDER BY message_id
      LIMIT ${limit}`;
    return rows.map((row) => row.message_id);
  }
}
