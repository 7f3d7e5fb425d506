import { Injectable } from '@nestjs/common';
import type { Plan } from '../../../generated/prisma/enums';
import { PrismaService } from '../../../prisma/prisma.service';

/** An endpoint whose log the pruner walks, with its community's plan (which sets the retention). */
export interface PrunedEndpoint {
  communityId: string;
  id: string;
  plan: Plan;
}

/** One chunk of an endpoint's log: the attempts looked at, those deleted, where the next chunk starts. */
export interface PrunedLogChunk {
  seen: number;
  deleted: number;
  last: { createdAt: Date; id: string } | null;
}

/**
 * The delivery log's retention (docs/api.md#retention-of-the-delivery-log): the statements that delete
 * attempts past their community's retention, endpoint by endpoint, through the (community_id,
 * endpoint_id, created_at, id) index the log's pages already use, so each statement's cost is its
 * chunk's, whatever the table's size. One of the stores of `webhook_deliveries` (README.md in this
 * folder, "State").
 */
@Injectable()
export class DeliveryLogRetentionStore {
  constructor(private readonly prisma: PrismaService) {}

  /** Up to `limit` endpoints after `after` (by id), each with its community's plan. */
  async endpoints(after: string | null, limit: number): Promise<PrunedEndpoint[]> {
    return this.prisma.$queryRaw<PrunedEndpoint[]>`
      SELECT e.community_id AS "communityId", e.id, c.plan
        FROM webhook_endpoints e JOIN communities c ON c.id = e.community_id
       WHERE ${after}::uuid IS NULL OR e.id > ${after}::uuid
       ORDER BY e.id
       LIMIT ${limit}`;
  }

  /**
   * One chunk of the endpoint's attempts written before `cutoff`, oldest first, after `after`: deletes
   * those of messages whose every attempt at this endpoint is older than the cutoff and closed. A message
   * whose first attempt is past retention but whose retry (or resend) is not stays whole, and a PENDING
   * attempt is never deleted (nor, then, any attempt of its message).
   */
  async pruneChunk(
    endpoint: PrunedEndpoint,
    cutoff: Date,
    after: { createdAt: Date; id: string } | null,
    limit: number,
  ): Promise<PrunedLogChunk> {
    const [chunk] = await this.prisma.$queryRaw<
      { seen: number; deleted: number; last_created_at: Date | null; last_id: string | null }[]
    >`
      WITH candidates AS (
        SELECT d.id, d.created_at, d.message_id FROM webhook_deliveries d
         WHERE d.community_id = ${endpoint.communityId}::uuid AND d.endpoint_id = ${endpoint.id}::uuid
           AND d.created_at < ${cutoff}
           AND (${after?.createdAt ?? null}::timestamptz IS NULL
                OR (d.created_at, d.id) > (${after?.createdAt ?? null}::timestamptz, ${after?.id ?? null}::uuid))
         ORDER BY d.created_at, d.id
         LIMIT ${limit}
      ), gone AS (
        DELETE FROM webhook_deliveries w USING candidates c
         WHERE w.id = c.id AND w.community_id = ${endpoint.communityId}::uuid
           AND NOT EXISTS (
             SELECT 1 FROM webhook_deliveries n
              WHERE n.endpoint_id = ${endpoint.id}::uuid AND n.message_id = c.message_id
                AND (n.created_at >= ${cutoff} OR n.status = 'PENDING'))
        RETURNING w.id
      ), last AS (
        SELECT created_at, id FROM candidates ORDER BY created_at DESC, id DESC LIMIT 1
      )
      SELECT (SELECT count(*)::int FROM candidates) AS seen, (SELECT count(*)::int FROM gone) AS deleted,
             (SELECT created_at FROM last) AS last_created_at, (SELECT id FROM last) AS last_id`;
    return {
      seen: chunk.seen,
      deleted: chunk.deleted,
      last:
        chunk.last_created_at && chunk.last_id
          ? { createdAt: chunk.last_created_at, id: chunk.last_id }
          : null,
    };
  }
}
