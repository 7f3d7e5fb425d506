import { Injectable } from '@nestjs/common';
import type { Prisma } from '../../generated/prisma/client';
import type { Tx } from '../../prisma/prisma.service';

/**
 * The API's side of `outbox_events`: events are appended inside the caller's transaction. The
 * worker's side (relay, prune, lag) is WorkerOutboxStore, whose statements move rows between this
 * table and webhook_deliveries in one statement each.
 */
@Injectable()
export class OutboxEventsStore {
  async append(
    tx: Tx,
    event: {
      communityId: string;
      messageId: string;
      eventType: string;
      payload: Prisma.InputJsonValue;
      requestId: string | null;
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
      payloads: string[];
      requestId: string | null;
    },
  ): Promise<void> {
    await tx.$executeRaw`
      INSERT INTO outbox_events (community_id, message_id, event_type, payload, request_id)
      SELECT ${events.communityId}::uuid, e.message_id, ${events.eventType}, e.payload::jsonb, ${events.requestId}::text
        FROM unnest(${events.messageIds}::text[], ${events.payloads}::text[]) WITH ORDINALITY AS e(message_id, payload, ord)
       ORDER BY e.ord`;
  }
}
