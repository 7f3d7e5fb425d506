import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { GroupCommit } from '../../../common/batching/group-commit';
import { Prisma } from '../../../generated/prisma/client';
import { PrismaService, type Tx } from '../../../prisma/prisma.service';
import type { SendResult } from '../core/delivery/webhook-sender.service';
import type { AttemptKey } from '../core/delivery-job';
import type { EndpointState } from '../core/webhook-endpoints.store';
import { type AttemptClaim, SECRETS_VERSION } from './attempt-claim';
import type { NextAttempt } from './retry-policy';

/**
 * The worker's hot path on `webhook_deliveries`: claim an attempt before its send, close it after,
 * cancel what a paused or disabled endpoint will not get. A row is one attempt of one (event,
 * endpoint) pair; the pair's newest row is its state:
 *
 * - PENDING, `started_at` NULL: waiting, due at `next_attempt_at` (the relay writes attempt 1 due
 *   at once, a failure writes the next attempt due later). The queue job is only a copy of this.
 * - PENDING, `started_at` set: claimed by a worker that is sending it now.
 * - SUCCESS / FAILED: closed; a FAILED row that has a retry is followed by a row with attempt + 1.
 *
 * Every state change is a conditional statement on that row, so a job run twice, two workers and
 * the sweep never send one attempt twice nor record one request twice. The table's other
 * statements live in the other stores of it (README.md in this folder, "State"); no other code
 * touches it.
 */

/** The error of a waiting retry closed unsent because a later attempt of its message succeeded. */
export const SUPERSEDED_BY_RESEND = 'superseded by a successful resend';

/**
 * Another attempt of the row's message to its endpoint is claimed and being sent: a resend (or any
 * later attempt) then waits for it rather than reaching the receiver beside it. Written against the
 * row `d`. A first attempt is not asked (nothing of its message was sent before it), and the OR
 * keeps the look-up a per-row probe of the (message, endpoint, attempt) unique index: as a bare NOT
 * EXISTS the planner made a batch's claims one anti-join over the table, which cost every delivery.
 */
const SIBLING_IN_FLIGHT = `(d.attempt > 1 AND EXISTS (SELECT 1 FROM webhook_deliveries o
          WHERE o.endpoint_id = d.endpoint_id AND o.message_id = d.message_id AND o.attempt <> d.attempt
            AND o.status = 'PENDING' AND o.started_at IS NOT NULL))`;

interface ClaimRow extends EndpointState {
  delivery_id: string | null;
  request_id: string | null;
  traceparent: string | null;
  secrets_version: number | null;
  sibling_in_flight?: boolean;
}

interface BatchClaimRow extends ClaimRow {
  endpoint_id: string;
  message_id: string;
  attempt: number;
}

/** A claimed attempt's outcome, to close its row (and write its retry, if any). */
interface Finish {
  id: string;
  communityId: string;
  result: SendResult;
  next: NextAttempt | null;
}

/**
 * How many claim (or finish, or success) statements run at once: a worker's jobs share them, each
 * statement carrying every call made while the others ran (see GroupCommit). Two keep one statement
 * on the wire while the other's results come back, and leave the rest of the pool to everything else.
 */
export const HOT_PATH_BATCHES = 2;
/**
 * Finish statements run one at a time, each carrying every finish called while the one before ran:
 * two at once close attempts of the same busy endpoint and count them into the same row of its hourly
 * figures, so the second waits on the first's row lock, rechecks, and adds a statement's planning for
 * a smaller batch (bench/README.md#delivery-throughput-benchdelivery-throughputmjs).
 */
export const FINISH_BATCHES = 1;

/** The most calls one of those statements carries. */
export const HOT_PATH_BATCH_SIZE = 500;

@Injectable()
export class DeliveryAttemptsStore {
  /** The worker's claims and finishes go to PostgreSQL in shared statements (group commit). */
  private readonly claims = new GroupCommit<AttemptKey, AttemptClaim | null>(
    (keys) => this.claimBatch(keys),
    {
      maxConcurrentBatches: HOT_PATH_BATCHES,
      maxBatchSize: HOT_PATH_BATCH_SIZE,
    },
  );
  private readonly finishes = new GroupCommit<Finish, boolean>((items) => this.finishBatch(items), {
    maxConcurrentBatches: FINISH_BATCHES,
    maxBatchSize: HOT_PATH_BATCH_SIZE,
  });

  private readonly unclaims = new GroupCommit<{ id: string; communityId: string }, void>(
    (items) => this.unclaimBatch(items),
    { maxConcurrentBatches: 1, maxBatchSize: HOT_PATH_BATCH_SIZE },
  );

  constructor(private readonly prisma: PrismaService) {}

  /**
   * Claims an attempt before it is sent, and reads its endpoint, in ONE statement. The claim is
   * `started_at = now()` on the attempt's row while it is PENDING and unclaimed: only one caller
   * ever wins it, so a job re-queued by the sweep, re-run by BullMQ after a stall, or held by two
   * workers sends at most once. A row that does not exist (a job queued before rows were written
   * at relay time) is inserted already claimed; the unique key again lets one caller win. Nothing
   * is claimed when the endpoint is paused, disabled or gone.
   */
  async claim(key: AttemptKey): Promise<AttemptClaim> {
    return (await this.claims.call(key)) ?? this.claimOne(key);
  }

  /**
   * The common case of many claims in one statement: attempts whose row is there, PENDING,
   * unclaimed and not locked by anyone else, on an endpoint that takes deliveries. Each of those
   * gets its claim; any other key answers null and goes through claimOne, which tells the rare
   * cases apart (no row yet, claimed already, paused, disabled, deleted). Rows are locked with SKIP
   * LOCKED in one pass, so two batches never wait on each other, and a key that appears twice is
   * claimed for its first call only.
   *
   * The rows are found by their unique key alone, and their state is read from the locked row
   * (current: nobody can change it before the UPDATE): with `status = 'PENDING' AND started_at IS
   * NULL` on the table in either step, a planner whose statistics lag a burst of new rows reads the
   * whole due-attempts partial index instead.
   */
  private async claimBatch(keys: readonly AttemptKey[]): Promise<(AttemptClaim | null)[]> {
    // straight to the pg pool: Prisma's per-query work was a measurable part of each attempt's
    // latency. Unnamed, so each batch is planned with the table's current size (a generic plan
    // cached while the table was small would scan it whole).
    const { rows } = await this.prisma.pool.query<BatchClaimRow>(
      `
      WITH wanted AS (
        SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::int[])
          AS w(community_id, endpoint_id, message_id, attempt)
      ), target AS (
        SELECT d.id, d.status, d.started_at FROM wanted w
        JOIN webhook_endpoints e ON e.community_id = w.community_id AND e.id = w.endpoint_id
        JOIN webhook_deliveries d
          ON d.endpoint_id = w.endpoint_id AND d.message_id = w.message_id AND d.attempt = w.attempt
        WHERE e.is_active AND e.disabled_at IS NULL AND e.ordering = 'unordered'
        FOR UPDATE OF d SKIP LOCKED
      ), claimed AS (
        UPDATE webhook_deliveries d SET started_at = now(), updated_at = now()
        FROM target t WHERE d.id = t.id AND t.status = 'PENDING' AND t.started_at IS NULL
          AND NOT ${SIBLING_IN_FLIGHT}
        RETURNING d.id, d.endpoint_id, d.message_id, d.attempt, d.request_id, d.traceparent
      )
      SELECT c.id AS delivery_id, c.endpoint_id, c.message_id, c.attempt, c.request_id, c.traceparent,
             e.url, e.is_active, e.disabled_at, e.consecutive_failures, e.failing_since, e.last_success_at,
             e.custom_headers, e.rate_limit, e.ordering, e.retry_schedule_ms, e.timeout_ms, e.transport_version,
             ${SECRETS_VERSION} AS secrets_version
      FROM claimed c JOIN webhook_endpoints e ON e.id = c.endpoint_id`,
      [
        keys.map((k) => k.communityId),
        keys.map((k) => k.endpointId),
        keys.map((k) => k.messageId),
        keys.map((k) => k.attempt),
      ],
    );
    const byKey = new Map(rows.map((r) => [`${r.endpoint_id}.${r.message_id}.${r.attempt}`, r]));
    return keys.map((key) => {
      const k = `${key.endpointId}.${key.messageId}.${key.attempt}`;
      const row = byKey.get(k);
      if (!row) return null;
      byKey.delete(k); // a duplicate call of the same attempt must not send it twice
      const {
        delivery_id,
        request_id,
        traceparent,
        secrets_version,
        endpoint_id: _e,
        message_id: _m,
        attempt: _a,
        ...endpoint
      } = row;
      return {
        endpoint,
        deliveryId: delivery_id,
        requestId: request_id,
        traceparent,
        secretsVersion: secrets_version,
      };
    });
  }

  /** One claim in one statement: also inserts a missing row claimed, and reports why nothing was claimed. */
  private async claimOne(key: AttemptKey): Promise<AttemptClaim> {
    const { communityId, endpointId, messageId, eventType, attempt } = key;
    const rows = await this.prisma.$queryRaw<ClaimRow[]>`
      WITH endpoint AS (
        SELECT id, community_id, url, is_active, disabled_at, consecutive_failures, failing_since, last_success_at,
               custom_headers, rate_limit, ordering, retry_schedule_ms, timeout_ms, transport_version
        FROM webhook_endpoints WHERE community_id = ${communityId}::uuid AND id = ${endpointId}::uuid
      ), claimed AS (
        -- a FIFO endpoint's attempts are claimed only as its queue's head (claimFifoHead)
        UPDATE webhook_deliveries d SET started_at = now(), updated_at = now()
        FROM endpoint e
        WHERE e.is_active AND e.disabled_at IS NULL AND e.ordering = 'unordered'
          AND d.id = (SELECT id FROM webhook_deliveries
                      WHERE endpoint_id = e.id AND message_id = ${messageId} AND attempt = ${attempt})
          AND d.status = 'PENDING' AND d.started_at IS NULL
          AND NOT ${Prisma.raw(SIBLING_IN_FLIGHT)}
        RETURNING d.id, d.request_id, d.traceparent
      ), inserted AS (
        INSERT INTO webhook_deliveries
          (id, community_id, endpoint_id, message_id, event_type, attempt, status, next_attempt_at, started_at, updated_at,
           subject)
        SELECT ${randomUUID()}::uuid, community_id, id, ${messageId}, ${eventType}, ${attempt}, 'PENDING', now(), now(), now(),
               (SELECT o.subject FROM outbox_events o WHERE o.message_id = ${messageId})
        FROM endpoint WHERE is_active AND disabled_at IS NULL AND ordering = 'unordered'
          AND NOT EXISTS (SELECT 1 FROM claimed)
        ON CONFLICT (message_id, endpoint_id, attempt) DO NOTHING
        RETURNING id
      )
      SELECT e.url, e.is_active, e.disabled_at, e.consecutive_failures, e.failing_since, e.last_success_at,
             e.custom_headers, e.rate_limit, e.ordering, e.retry_schedule_ms, e.timeout_ms, e.transport_version,
             COALESCE((SELECT id FROM claimed), (SELECT id FROM inserted)) AS delivery_id,
             (SELECT request_id FROM claimed) AS request_id,
             (SELECT traceparent FROM claimed) AS traceparent,
             EXISTS (SELECT 1 FROM webhook_deliveries o
                     WHERE o.endpoint_id = e.id AND o.message_id = ${messageId} AND o.attempt <> ${attempt}
                       AND o.status = 'PENDING' AND o.started_at IS NOT NULL) AS sibling_in_flight,
             ${Prisma.raw(SECRETS_VERSION)} AS secrets_version
      FROM endpoint e`;
    const row = rows[0];
    if (!row)
      return { endpoint: null, deliveryId: null, requestId: null, traceparent: null, secretsVersion: null };
    const { delivery_id, request_id, traceparent, secrets_version, sibling_in_flight, ...endpoint } = row;
    return {
      endpoint,
      deliveryId: delivery_id,
      requestId: request_id,
      traceparent,
      secretsVersion: secrets_version,
      // only when nothing was claimed: this attempt waits for the one of its message being sent
      ...(delivery_id === null && sibling_in_flight ? { waitsForAttemptInFlight: true } : {}),
    };
  }

  /** Closes a claimed attempt that cannot be sent (its event body is gone), saying why. */
  async failClaimed(id: string, communityId: string, reason: string): Promise<void> {
    await this.prisma.pool.query(
      `UPDATE webhook_deliveries SET status = 'FAILED', error = $3, next_attempt_at = NULL, updated_at = now()
       WHERE community_id = $1::uuid AND id = $2::uuid AND status = 'PENDING'`,
      [communityId, id, reason],
    );
  }

  /**
   * Closes a claimed attempt with its outcome and, when `next` is given, writes the next attempt as
   * PENDING due after `next.delayMs`: one statement, so a retry is never lost between the two.
   * Returns false when the row was no longer PENDING (the sweep closed it as OUTCOME_UNKNOWN after
   * a send that outlived its claim; that row, and the retry the sweep scheduled, stand).
   */
  finish(id: string, communityId: string, result: SendResult, next: NextAttempt | null): Promise<boolean> {
    return this.finishes.call({ id, communityId, result, next });
  }

  /** Closes many claimed attempts, writes their retries and counts them in their endpoints' hourly figures, in one statement (see finish). */
  private async finishBatch(items: readonly Finish[]): Promise<boolean[]> {
    // straight to the pg pool: Prisma's per-query work was a visible part of each attempt's path
    // (most of all for a FIFO endpoint, whose next head waits for this). Unnamed, as the claim: a
    // prepared statement's plan went generic after five runs, made while the table was small, and
    // scanned all of it per batch (bench/README.md#delivery-throughput-benchdelivery-throughputmjs).
    const { rows } = await this.prisma.pool.query<{ id: string }>({
      text: `
      WITH outcome AS (
        SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::"DeliveryStatus"[], $4::int[], $5::text[], $6::int[],
                             $7::text[], $8::int[], $9::bigint[])
          AS o(id, community_id, status, response_status, response_body, duration_ms, error, next_attempt, delay_ms)
      ), target AS (
        -- found by its key alone, its state checked on the locked row (as the claim): with the state
        -- in the lookup, a plan from statistics older than a burst read the waiting rows' index whole
        SELECT o.*, d.status AS current_status FROM outcome o
        JOIN webhook_deliveries d ON d.community_id = o.community_id AND d.id = o.id
        FOR UPDATE OF d
      ), closed AS (
        UPDATE webhook_deliveries d
        SET status = o.status, response_status = o.response_status, response_body = o.response_body,
            duration_ms = o.duration_ms, error = o.error, next_attempt_at = NULL, updated_at = now()
        FROM target o
        WHERE d.id = o.id AND o.current_status = 'PENDING'
        RETURNING d.id, d.community_id, d.endpoint_id, d.message_id, d.event_type, d.request_id, d.traceparent,
                  d.queue_position, d.status, d.duration_ms, d.subject, o.next_attempt, o.delay_ms
      ), counted AS (
        -- the endpoints' hourly figures commit with the outcomes (webhook_count_attempts, in the migrations)
        SELECT webhook_count_attempts(array_agg(community_id), array_agg(endpoint_id), array_agg(status = 'SUCCESS'),
                                      array_agg(duration_ms))
        FROM closed
      ), retry AS (
        -- the retry keeps its attempt's place in the endpoint's queue (a FIFO endpoint's head stays its head)
        INSERT INTO webhook_deliveries
          (id, community_id, endpoint_id, message_id, event_type, attempt, status, next_attempt_at, request_id,
           traceparent, queue_position, updated_at, subject)
        SELECT gen_random_uuid(), community_id, endpoint_id, message_id, event_type, next_attempt, 'PENDING',
               now() + delay_ms * interval '1 millisecond', request_id, traceparent, queue_position, now(), subject
        FROM closed WHERE next_attempt IS NOT NULL
        ON CONFLICT (message_id, endpoint_id, attempt) DO NOTHING
      )
      SELECT id FROM closed, counted, (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit`,
      values: [
        items.map((f) => f.id),
        items.map((f) => f.communityId),
        items.map((f) => (f.result.ok ? 'SUCCESS' : 'FAILED')),
        items.map((f) => f.result.status),
        items.map((f) => f.result.responseBody),
        items.map((f) => f.result.durationMs),
        items.map((f) => f.result.error),
        items.map((f) => f.next?.attempt ?? null),
        items.map((f) => f.next?.delayMs ?? null),
      ],
    });
    const closed = new Set(rows.map((r) => r.id));
    return items.map((f) => closed.has(f.id));
  }

  /**
   * Gives back a claim whose attempt was not sent (its job found no endpoint slot and parks): the
   * row is waiting again, for the job when it wakes or for the sweep. Only a row still PENDING: one
   * the sweep already closed stays closed.
   */
  async unclaim(id: string, communityId: string): Promise<void> {
    await this.unclaims.call({ id, communityId });
  }

  private async unclaimBatch(items: readonly { id: string; communityId: string }[]): Promise<void[]> {
    // by key, the state checked on the locked row, as the finish (a state in the lookup can read
    // every waiting row when the statistics are older than a burst)
    await this.prisma.pool.query(
      `WITH target AS (
         SELECT d.id, d.status FROM unnest($1::uuid[], $2::uuid[]) AS u(community_id, id)
         JOIN webhook_deliveries d ON d.community_id = u.community_id AND d.id = u.id
         FOR UPDATE OF d
       )
       UPDATE webhook_deliveries d SET started_at = NULL, updated_at = now()
       FROM target t WHERE d.id = t.id AND t.status = 'PENDING'`,
      [items.map((u) => u.communityId), items.map((u) => u.id)],
    );
    return items.map(() => undefined);
  }

  /**
   * A later attempt of the message succeeded on the endpoint (a resend): its earlier attempts still
   * waiting are closed without being sent, saying why, so the receiver does not get the message again
   * from its retry schedule. One already claimed (in flight) ends as it ends. Returns how many closed.
   */
  async closeSuperseded(key: Omit<AttemptKey, 'eventType'>): Promise<number> {
    const { communityId, endpointId, messageId, attempt } = key;
    const closed = await this.prisma.pool.query(
      `UPDATE webhook_deliveries SET status = 'FAILED', error = $5, next_attempt_at = NULL, updated_at = now()
       WHERE community_id = $1::uuid AND endpoint_id = $2::uuid AND message_id = $3 AND attempt < $4
         AND status = 'PENDING' AND started_at IS NULL`,
      [communityId, endpointId, messageId, attempt, SUPERSEDED_BY_RESEND],
    );
    return closed.rowCount ?? 0;
  }

  /**
   * A claimed attempt that its endpoint's rate limit holds back: unclaimed, due when it may start,
   * so the log shows when it will go and the sweep leaves it alone until then.
   */
  async holdBack(id: string, communityId: string, waitMs: number): Promise<void> {
    await this.prisma.pool.query(
      `UPDATE webhook_deliveries SET started_at = NULL, updated_at = now(),
              next_attempt_at = now() + make_interval(secs => $3::float8 / 1000)
       WHERE community_id = $1::uuid AND id = $2::uuid AND status = 'PENDING'`,
      [communityId, id, waitMs],
    );
  }

  /** A queued attempt whose endpoint was paused, disabled or deleted meanwhile: its waiting row says so. */
  async cancelAttempt(key: Omit<AttemptKey, 'eventType'>, reason: string): Promise<void> {
    const { communityId, endpointId, messageId, attempt } = key;
    await this.prisma.webhookDelivery.updateMany({
      where: { communityId, endpointId, messageId, attempt, status: 'PENDING', startedAt: null },
      data: { status: 'FAILED', error: reason, nextAttemptAt: null },
    });
  }

  /**
   * The endpoint's waiting attempts become FAILED, saying why (their queued jobs then find nothing to
   * claim). Attempts being sent right now are left to finish and record what the target said.
   */
  async cancelWaiting(
    communityId: string,
    endpointId: string,
    reason: string,
    db: Tx = this.prisma,
  ): Promise<void> {
    await db.webhookDelivery.updateMany({
      where: { communityId, endpointId, status: 'PENDING', startedAt: null },
      data: { status: 'FAILED', error: reason, nextAttemptAt: null },
    });
  }
}
