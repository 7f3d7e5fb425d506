import { Injectable } from '@nestjs/common';
import { PrismaService, Tx } from '../../../prisma/prisma.service';
import type { EventBody } from '../../events/event-body';
import type { AttemptKey } from '../core/delivery-job';
import type { NextAttempt } from './retry-policy';
import { MIN_ENDPOINT_TIMEOUT_MS } from '../core/delivery-settings';

/** What a closed attempt whose worker died says: the request may or may not have reached the target. */
export const OUTCOME_UNKNOWN = 'worker stopped; outcome unknown';

/** A claimed attempt the sweep closed because its worker stopped mid-send. */
export interface AbandonedAttempt extends AttemptKey {
  id: string;
  requestId: string | null;
  /** its trace context, which its retry keeps (like requestId) */
  traceparent: string | null;
  /** its place in the endpoint's queue, which its retry keeps */
  queuePosition: string | null;
  /** a probe of the test route (its API process died mid-send): closed, never retried nor counted */
  test: boolean;
  /** the event's subject, which its retry keeps (like requestId) */
  subject: string | null;
  /** its endpoint's own retry schedule in ms (empty: the platform's), which its retry follows */
  retryScheduleMs: number[];
}

/** How long a claim may last before the sweep takes its worker for stopped (DeliverySweep). */
export interface ClaimExpiry {
  /** WEBHOOK_TIMEOUT: the send's timeout of an endpoint without its own */
  platformTimeoutMs: number;
  /** the longest any send may take: for a claim whose endpoint changed since (its timeout then is unknown) */
  longestSendMs: number;
  /** beyond the send, for the statements around it */
  marginMs: number;
}

/** A due, unclaimed attempt with what its queue job needs. */
export interface DueAttempt extends AttemptKey {
  id: string;
  nextAttemptAt: Date;
  outboxId: string | null;
  payload: EventBody | null;
  /** the endpoint is FIFO (the attempt is its queue's head) */
  fifo: boolean;
}

/** An attempt row's key columns as the sweep's raw SQL returns them. */
interface AttemptRow {
  id: string;
  community_id: string;
  endpoint_id: string;
  message_id: string;
  event_type: string;
  attempt: number;
}

/** The one mapper of an attempt row's key columns. */
function attemptOf(row: AttemptRow): AttemptKey & { id: string } {
  return {
    id: row.id,
    communityId: row.community_id,
    endpointId: row.endpoint_id,
    messageId: row.message_id,
    eventType: row.event_type,
    attempt: row.attempt,
  };
}

/**
 * The sweep's statements on `webhook_deliveries` (DeliverySweep, one worker at a time, in its
 * transaction): close the claims of workers that died, write their retries, page through the due
 * attempts that have no job, close those whose event body is gone; and the overdue count the
 * worker's metrics show. One of the stores of the table (README.md in this folder, "State").
 */
@Injectable()
export class DeliverySweepStore {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Sweep, part one: claims older than their send can take belong to a worker that stopped
   * mid-send: the endpoint's timeout (its own `timeout_ms`, else the platform's) plus the margin, or
   * the longest send plus the margin when the endpoint was changed after the claim (the claim may
   * have read a longer timeout than the row holds now). Closes up to `limit` of them as FAILED with
   * OUTCOME_UNKNOWN (the request may have been sent: the log keeps one record per request) and
   * returns them with their endpoint's schedule, in the caller's transaction so that their retries
   * are written in the same commit.
   *
   * No index has started_at (so that a claim is a HOT update, see the migration
   * delivery_hot_claims): the rows come from the partial index of PENDING rows and are filtered on
   * the heap, a cost the sweep pays once per interval instead of every claim paying index writes.
   * Claims younger than the shortest expiry are dropped before their endpoint is looked up.
   */
  async closeAbandoned(tx: Tx, expiry: ClaimExpiry, limit: number): Promise<AbandonedAttempt[]> {
    const { platformTimeoutMs, longestSendMs, marginMs } = expiry;
    const shortestMs = Math.min(platformTimeoutMs, MIN_ENDPOINT_TIMEOUT_MS) + marginMs;
    const rows = await tx.$queryRaw<
      (AttemptRow & {
        request_id: string | null;
        traceparent: string | null;
        queue_position: string | null;
        is_test: boolean;
        retry_schedule_ms: number[];
        subject: string | null;
      })[]
    >`
      WITH stale AS (
        SELECT d.id, e.retry_schedule_ms FROM webhook_deliveries d
        JOIN webhook_endpoints e ON e.id = d.endpoint_id
        WHERE d.status = 'PENDING' AND d.started_at IS NOT NULL
          AND d.started_at < now() - ${shortestMs} * interval '1 millisecond'
          AND d.started_at < now() - (CASE WHEN e.updated_at > d.started_at THEN ${longestSendMs}
                                           ELSE COALESCE(e.timeout_ms, ${platformTimeoutMs}) END
                                      + ${marginMs}) * interval '1 millisecond'
        ORDER BY d.started_at LIMIT ${limit}
        FOR UPDATE OF d SKIP LOCKED
      )
      UPDATE webhook_deliveries d
      SET status = 'FAILED', error = ${OUTCOME_UNKNOWN}, next_attempt_at = NULL, updated_at = now()
      FROM stale WHERE d.id = stale.id AND d.status = 'PENDING'
      RETURNING d.id, d.community_id, d.endpoint_id, d.message_id, d.event_type, d.attempt, d.request_id,
                d.traceparent, d.queue_position::text, d.is_test, stale.retry_schedule_ms, d.subject`;
    return rows.map((r) => ({
      ...attemptOf(r),
      requestId: r.request_id,
      traceparent: r.traceparent,
      queuePosition: r.queue_position,
      test: r.is_test,
      retryScheduleMs: r.retry_schedule_ms,
      subject: r.subject,
    }));
  }

  /** Writes the next attempts of closed ones, PENDING and due after their delay (unique per attempt). */
  async insertRetries(tx: Tx, retries: { of: AbandonedAttempt; next: NextAttempt }[]): Promise<void> {
    if (retries.length === 0) return;
    await tx.$executeRaw`
      INSERT INTO webhook_deliveries
        (id, community_id, endpoint_id, message_id, event_type, attempt, status, next_attempt_at, request_id,
         traceparent, queue_position, updated_at, subject)
      SELECT gen_random_uuid(), r.community_id, r.endpoint_id, r.message_id, r.event_type, r.attempt, 'PENDING',
             now() + r.delay_ms * interval '1 millisecond', r.request_id, r.traceparent,
             COALESCE(r.queue_position, nextval('outbox_events_id_seq')), now(), r.subject
      FROM unnest(${retries.map((r) => r.of.communityId)}::uuid[], ${retries.map((r) => r.of.endpointId)}::uuid[],
                  ${retries.map((r) => r.of.messageId)}::text[], ${retries.map((r) => r.of.eventType)}::text[],
                  ${retries.map((r) => r.next.attempt)}::int[], ${retries.map((r) => r.next.delayMs)}::bigint[],
                  ${retries.map((r) => r.of.requestId)}::text[], ${retries.map((r) => r.of.traceparent)}::text[],
                  ${retries.map((r) => r.of.queuePosition)}::bigint[], ${retries.map((r) => r.of.subject)}::text[])
        AS r(community_id, endpoint_id, message_id, event_type, attempt, delay_ms, request_id, traceparent, queue_position,
             subject)
      ON CONFLICT (message_id, endpoint_id, attempt) DO NOTHING`;
  }

  /**
   * Sweep, part two: a page of unclaimed attempts that are due, oldest first, after the keyset
   * position `after`, with the event body their job carries (joined from the outbox).
   */
  async dueUnclaimed(tx: Tx, after: { at: Date; id: string } | null, limit: number): Promise<DueAttempt[]> {
    const afterAt = after?.at ?? new Date(0);
    const afterId = after?.id ?? '00000000-0000-0000-0000-000000000000';
    const rows = await tx.$queryRaw<
      (AttemptRow & {
        next_attempt_at: Date;
        outbox_id: bigint | null;
        payload: EventBody | null;
        fifo: boolean;
      })[]
    >`
      SELECT d.id, d.community_id, d.endpoint_id, d.message_id, d.event_type, d.attempt, d.next_attempt_at,
             o.id AS outbox_id, o.payload, e.ordering = 'fifo' AS fifo
      FROM webhook_deliveries d
      JOIN webhook_endpoints e ON e.id = d.endpoint_id
      LEFT JOIN outbox_events o ON o.message_id = d.message_id
      WHERE d.status = 'PENDING' AND d.started_at IS NULL AND d.next_attempt_at <= now()
        AND (d.next_attempt_at, d.id) > (${afterAt}, ${afterId}::uuid)
        -- of a FIFO endpoint's queue only the head: its job sends the rest in order, one after another
        AND (e.ordering = 'unordered' OR d.id = (
          SELECT h.id FROM webhook_deliveries h WHERE h.endpoint_id = d.endpoint_id AND h.status = 'PENDING'
          ORDER BY h.queue_position, h.id LIMIT 1))
      ORDER BY d.next_attempt_at, d.id
      LIMIT ${limit}`;
    return rows.map((r) => ({
      ...attemptOf(r),
      nextAttemptAt: r.next_attempt_at,
      outboxId: r.outbox_id === null ? null : r.outbox_id.toString(),
      payload: r.payload,
      fifo: r.fifo,
    }));
  }

  /** A waiting attempt that can never be sent (its event body is gone) is closed, saying why. */
  async failWaiting(tx: Tx, ids: string[], reason: string): Promise<void> {
    if (ids.length === 0) return;
    await tx.$executeRaw`
      UPDATE webhook_deliveries SET status = 'FAILED', error = ${reason}, next_attempt_at = NULL, updated_at = now()
      WHERE id = ANY(${ids}::uuid[]) AND status = 'PENDING' AND started_at IS NULL`;
  }

  /**
   * FIFO queues for the metrics: the endpoints whose head is a failed attempt's retry, waiting and
   * holding back the deliveries behind it, and how many deliveries wait behind FIFO heads in all.
   * Read when Prometheus scrapes the worker (one look-up per FIFO endpoint in the queue index).
   */
  async fifoBacklog(): Promise<{ blockedEndpoints: number; waitingBehindHeads: number }> {
    const [row] = await this.prisma.$queryRaw<{ blocked: number; waiting: number }[]>`
      SELECT count(*) FILTER (WHERE h.attempt > 1 AND h.started_at IS NULL AND h.next_attempt_at > now()
                                AND q.behind > 0)::int AS blocked,
             coalesce(sum(q.behind), 0)::int AS waiting
      FROM webhook_endpoints e
      CROSS JOIN LATERAL (SELECT d.attempt, d.started_at, d.next_attempt_at FROM webhook_deliveries d
                          WHERE d.endpoint_id = e.id AND d.status = 'PENDING'
                          ORDER BY d.queue_position, d.id LIMIT 1) h
      CROSS JOIN LATERAL (SELECT count(*) - 1 AS behind FROM webhook_deliveries d
                          WHERE d.endpoint_id = e.id AND d.status = 'PENDING') q
      WHERE e.ordering = 'fifo'`;
    return { blockedEndpoints: row.blocked, waitingBehindHeads: row.waiting };
  }

  /**
   * PENDING attempts due longer ago than `graceMs`: lost from the queue (the sweep re-adds them) or
   * a queue backlog. Read when Prometheus scrapes the worker.
   */
  async countOverdue(graceMs: number): Promise<number> {
    const [row] = await this.prisma.$queryRaw<{ count: number }[]>`
      SELECT count(*)::int AS count FROM webhook_deliveries
      WHERE status = 'PENDING'
        AND COALESCE(next_attempt_at, created_at) < now() - make_interval(secs => ${graceMs / 1000})`;
    return row.count;
  }
}
