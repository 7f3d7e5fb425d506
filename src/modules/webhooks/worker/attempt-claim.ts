import { randomUUID } from 'node:crypto';
import type { PrismaService } from '../../../prisma/prisma.service';
import type { DeliveryJobData } from './delivery-job';
import type { EndpointState } from './endpoint-health.service';

/** The endpoint as the attempt found it, and the attempt's log row when the endpoint still takes deliveries. */
export interface AttemptClaim {
  endpoint: EndpointState | null;
  deliveryId: string | null;
}

interface ClaimRow extends EndpointState {
  delivery_id: string | null;
}

/**
 * Reads the endpoint and, only when it is active and not disabled, records the attempt as PENDING,
 * in ONE statement: the same row DeliveryLogService.start writes (idempotent on (endpoint,
 * messageId, attempt), so a re-run job finds its row), made conditional on the endpoint state.
 * The delivery path runs this once per attempt, so a round trip saved here is ~1/4 of its
 * database work.
 */
export async function claimAttempt(prisma: PrismaService, job: DeliveryJobData): Promise<AttemptClaim> {
  const { communityId, endpointId, messageId, eventType, attempt } = job;
  const rows = await prisma.$queryRaw<ClaimRow[]>`
    WITH endpoint AS (
      SELECT id, community_id, url, is_active, disabled_at, consecutive_failures, failing_since, last_success_at
      FROM webhook_endpoints WHERE community_id = ${communityId}::uuid AND id = ${endpointId}::uuid
    ), inserted AS (
      INSERT INTO webhook_deliveries (id, community_id, endpoint_id, message_id, event_type, attempt, status, updated_at)
      SELECT ${randomUUID()}::uuid, community_id, id, ${messageId}, ${eventType}, ${attempt}, 'PENDING', now()
      FROM endpoint WHERE is_active AND disabled_at IS NULL
      ON CONFLICT (endpoint_id, message_id, attempt) DO NOTHING
      RETURNING id
    )
    SELECT e.url, e.is_active, e.disabled_at, e.consecutive_failures, e.failing_since, e.last_success_at,
           CASE WHEN e.is_active AND e.disabled_at IS NULL THEN COALESCE(
             (SELECT id FROM inserted),
             (SELECT d.id FROM webhook_deliveries d
              WHERE d.endpoint_id = e.id AND d.community_id = e.community_id
                AND d.message_id = ${messageId} AND d.attempt = ${attempt})
           ) END AS delivery_id
    FROM endpoint e`;
  const row = rows[0];
  if (!row) return { endpoint: null, deliveryId: null };
  const { delivery_id, ...endpoint } = row;
  return { endpoint, deliveryId: delivery_id };
}
