import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { GroupCommit } from '../../../common/batching/group-commit';
import { Prisma } from '../../../generated/prisma/client';
import type { DeliveryStatus } from '../../../generated/prisma/enums';
import { ISO } from '../../../prisma/iso-text';
import { PrismaService, Tx } from '../../../prisma/prisma.service';
import type { EventBody } from '../../events/event-body';
import type { SendResult } from '../core/delivery/webhook-sender.service';
import type { EndpointState } from '../core/webhook-endpoints.store';

/**
 * The one owner of `webhook_deliveries`. A row is one attempt of one (event, endpoint) pair; the
 * pair's newest row is its state:
 *
 * - PENDING, `started_at` NULL: waiting, due at `next_attempt_at` (the relay writes attempt 1 due
 *   at once, a failure writes the next attempt due later). The queue job is only a copy of this.
 * - PENDING, `started_at` set: claimed by a worker that is sending it now.
 * - SUCCESS / FAILED: closed; a FAILED row that has a retry is followed by a row with attempt + 1.
 *
 * Every state change is a conditional statement on that row, so a job run twice, two workers and
 * the sweep never send one attempt twice nor record one request twice.
 */

/**
 * A row of the delivery log's page statement, as an array (pg's rowMode 'array': no object built per
 * row by field name): an attempt (all null past the end), then the total and whether the endpoint
 * exists. The endpoint's id is the caller's, not read back.
 */
type DeliveryPageRow = [
  id: string | null,
  messageId: string | null,
  eventType: string | null,
  attempt: number | null,
  status: DeliveryStatus | null,
  responseStatus: number | null,
  responseBody: string | null,
  durationMs: number | null,
  error: string | null,
  createdAt: string | null,
  updatedAt: string | null,
  nextAttemptAt: string | null,
  requestId: string | null,
  payload: EventBody | null,
  total: string,
  endpointFound: boolean,
];

/**
 * A delivery attempt as the API shows it (docs/product-decisions.md#7-resources), with the event body that
 * was sent.
 */
export interface DeliveryView {
  id: string;
  endpointId: string;
  messageId: string;
  eventType: string;
  attempt: number;
  status: DeliveryStatus;
  responseStatus: number | null;
  responseBody: string | null;
  durationMs: number | null;
  error: string | null;
  /** a Date from Prisma, its ISO text from the page statement: the same in JSON */
  createdAt: Date | string;
  updatedAt: Date | string;
  nextAttemptAt: Date | string | null;
  /** the API request that raised the event */
  requestId: string | null;
  /** the event body sent; null once pruned (WEBHOOK_MESSAGE_RETENTION after its last attempt) */
  payload: EventBody | null;
}

/** One attempt of the delivery log's page row, field by field (a rest spread was 2.5% of the route's CPU). */
function deliveryView(row: DeliveryPageRow, endpointId: string): DeliveryView {
  return {
    id: row[0]!,
    endpointId,
    messageId: row[1]!,
    eventType: row[2]!,
    attempt: row[3]!,
    status: row[4]!,
    responseStatus: row[5],
    responseBody: row[6],
    durationMs: row[7],
    error: row[8],
    createdAt: row[9]!,
    updatedAt: row[10]!,
    nextAttemptAt: row[11],
    requestId: row[12],
    payload: row[13],
  };
}

const DELIVERY_SELECT = {
  id: true,
  endpointId: true,
  messageId: true,
  eventType: true,
  attempt: true,
  status: true,
  responseStatus: true,
  responseBody: true,
  durationMs: true,
  error: true,
  createdAt: true,
  updatedAt: true,
  nextAttemptAt: true,
  requestId: true,
} as const;

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

/** The (event, endpoint) pair an attempt belongs to. */
export interface AttemptKey {
  communityId: string;
  endpointId: string;
  messageId: string;
  eventType: string;
  attempt: number;
}

/** One outbox event the relay took, with the endpoints whose attempt 1 it wrote (in creation order). */
export interface RelayedEvent {
  outboxId: string;
  communityId: string;
  messageId: string;
  eventType: string;
  payload: EventBody;
  endpointIds: string[];
}

/** How much one relay statement takes: outbox rows locked, and the attempts after which it stops taking rows. */
export interface RelayLimits {
  rows: number;
  attempts: number;
}

/** The endpoint as the claim found it, and the claimed attempt when the endpoint still takes deliveries. */
export interface AttemptClaim {
  endpoint: EndpointState | null;
  deliveryId: string | null;
  requestId: string | null;
  /**
   * The version of the endpoint's signing secrets when the attempt was claimed (LiveSecrets in
   * WebhookSecretsService: the newest secret's creation time, epoch ms); null without secrets.
   */
  secretsVersion: number | null;
}

/** An attempt to schedule after a failure: attempt number and delay. */
export interface NextAttempt {
  attempt: number;
  delayMs: number;
}

/** A claimed attempt the sweep closed because its worker stopped mid-send. */
export interface AbandonedAttempt extends AttemptKey {
  id: string;
  requestId: string | null;
}

/** A due, unclaimed attempt with what its queue job needs. */
export interface DueAttempt extends AttemptKey {
  id: string;
  nextAttemptAt: Date;
  outboxId: string | null;
  payload: EventBody | null;
}

interface ClaimRow extends EndpointState {
  delivery_id: string | null;
  request_id: string | null;
  secrets_version: number | null;
}

/**
 * The claim reads the version of the endpoint's secrets (a read of webhook_secrets, whose writes
 * belong to WebhookSecretsService): the worker re-reads a cached copy older than this before it
 * signs, so an attempt claimed after a rotation committed carries the new secret's signature. The
 * same expression as LiveSecrets.version; an index-only look-up on (community_id, endpoint_id, created_at).
 */
const SECRETS_VERSION = `(SELECT round(extract(epoch FROM max(s.created_at)) * 1000)::float8
          FROM webhook_secrets s WHERE s.community_id = e.community_id AND s.endpoint_id = e.id)`;

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
 * How many claim (or finish) statements run at once: a worker's jobs share them, each statement
 * carrying every call made while the others ran (see GroupCommit). Two keep one statement on the
 * wire while the other's results come back, and leave the rest of the pool to everything else.
 */
const HOT_PATH_BATCHES = 2;
const HOT_PATH_BATCH_SIZE = 500;

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
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries n
                        WHERE n.endpoint_id = d.endpoint_id AND n.message_id = d.message_id
                          AND n.attempt > d.attempt)`;
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

/** What a closed attempt whose worker died says: the request may or may not have reached the target. */
export const OUTCOME_UNKNOWN = 'worker stopped; outcome unknown';

@Injectable()
export class DeliveriesStore {
  /** The worker's claims and finishes go to PostgreSQL in shared statements (group commit). */
  private readonly claims = new GroupCommit<AttemptKey, AttemptClaim | null>(
    (keys) => this.claimBatch(keys),
    {
      maxConcurrentBatches: HOT_PATH_BATCHES,
      maxBatchSize: HOT_PATH_BATCH_SIZE,
    },
  );
  private readonly finishes = new GroupCommit<Finish, boolean>((items) => this.finishBatch(items), {
    maxConcurrentBatches: HOT_PATH_BATCHES,
    maxBatchSize: HOT_PATH_BATCH_SIZE,
  });

  constructor(private readonly prisma: PrismaService) {}

  /**
   * The relay's whole batch in ONE autocommitted statement (no interactive transaction: measured,
   * Prisma's look-lock-read-insert-mark-commit round trips were 4.5 ms of each event's latency):
   *
   * 1. locks up to `rows` unrelayed outbox rows in id order, FOR UPDATE SKIP LOCKED, so two relays
   *    never take the same row;
   * 2. pairs each with its community's endpoints that are active, not disabled and subscribed to
   *    its type;
   * 3. keeps rows in id order while the attempts so far stay within `attempts` (always the first
   *    row, however wide its fan-out); the others stay unrelayed for the next batch;
   * 4. inserts attempt 1 of each pair PENDING, due now, with the event's request id (a pair that
   *    already has its row keeps it), and marks the kept rows relayed, in the same commit.
   *
   * That commit does not wait for its WAL flush (synchronous_commit off for this transaction only:
   * one fsync less on each event's path, 0.6 → 0.2 ms measured here). Safe because relaying is
   * idempotent: a PostgreSQL crash can only lose a relay whose attempts nobody has claimed yet (a
   * claim's own, synchronous commit flushes the WAL before it, and a send waits for the claim), so the
   * rows come back unrelayed and are relayed again: existing rows are kept, job ids are the same,
   * and a job that runs first claims by inserting its row.
   *
   * Returns the kept rows, each with its endpoint ids, for the queue jobs.
   */
  async relayOutboxBatch(limits: RelayLimits): Promise<RelayedEvent[]> {
    const { rows } = await this.prisma.pool.query<RelayedEvent>({
      // prepared once per connection: the statement is planned once, not per batch
      name: this.prisma.statementName('relay-outbox-batch'),
      text: `
        WITH locked AS MATERIALIZED (
          SELECT id, community_id, message_id, event_type, payload, request_id
          FROM outbox_events
          WHERE relayed_at IS NULL
          ORDER BY id
          LIMIT $1
          FOR UPDATE SKIP LOCKED
        ), fanned AS MATERIALIZED (
          SELECT l.id,
                 coalesce(array_agg(e.id::text ORDER BY e.created_at, e.id) FILTER (WHERE e.id IS NOT NULL), '{}') AS endpoint_ids,
                 count(e.id) AS attempts
          FROM locked l
          LEFT JOIN webhook_endpoints e
            ON e.community_id = l.community_id AND e.is_active AND e.disabled_at IS NULL
               AND l.event_type = ANY(e.events)
          GROUP BY l.id
        ), taken AS MATERIALIZED (
          SELECT l.*, f.endpoint_ids
          FROM (SELECT id, endpoint_ids, row_number() OVER w AS position, sum(attempts) OVER w AS running
                FROM fanned WINDOW w AS (ORDER BY id)) f
          JOIN locked l ON l.id = f.id
          WHERE f.position = 1 OR f.running <= $2
        ), inserted AS (
          INSERT INTO webhook_deliveries
            (id, community_id, endpoint_id, message_id, event_type, attempt, status, next_attempt_at, request_id, updated_at)
          SELECT gen_random_uuid(), t.community_id, e.endpoint_id::uuid, t.message_id, t.event_type, 1, 'PENDING', now(), t.request_id, now()
          FROM taken t CROSS JOIN LATERAL unnest(t.endpoint_ids) AS e(endpoint_id)
          ON CONFLICT (endpoint_id, message_id, attempt) DO NOTHING
        ), marked AS (
          UPDATE outbox_events o SET relayed_at = now() FROM taken t WHERE o.id = t.id
        )
        SELECT id::text AS "outboxId", community_id AS "communityId", message_id AS "messageId",
               event_type AS "eventType", payload, endpoint_ids AS "endpointIds"
        FROM taken, (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit
        ORDER BY id`,
      values: [limits.rows, limits.attempts],
    });
    return rows;
  }

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
   * whole due-attempts partial index instead (10 ms for 20,000 waiting rows, measured, against 0.3 ms).
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
        WHERE e.is_active AND e.disabled_at IS NULL
        FOR UPDATE OF d SKIP LOCKED
      ), claimed AS (
        UPDATE webhook_deliveries d SET started_at = now(), updated_at = now()
        FROM target t WHERE d.id = t.id AND t.status = 'PENDING' AND t.started_at IS NULL
        RETURNING d.id, d.endpoint_id, d.message_id, d.attempt, d.request_id
      )
      SELECT c.id AS delivery_id, c.endpoint_id, c.message_id, c.attempt, c.request_id,
             e.url, e.is_active, e.disabled_at, e.consecutive_failures, e.failing_since, e.last_success_at,
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
        secrets_version,
        endpoint_id: _e,
        message_id: _m,
        attempt: _a,
        ...endpoint
      } = row;
      return { endpoint, deliveryId: delivery_id, requestId: request_id, secretsVersion: secrets_version };
    });
  }

  /** One claim in one statement: also inserts a missing row claimed, and reports why nothing was claimed. */
  private async claimOne(key: AttemptKey): Promise<AttemptClaim> {
    const { communityId, endpointId, messageId, eventType, attempt } = key;
    const rows = await this.prisma.$queryRaw<ClaimRow[]>`
      WITH endpoint AS (
        SELECT id, community_id, url, is_active, disabled_at, consecutive_failures, failing_since, last_success_at
        FROM webhook_endpoints WHERE community_id = ${communityId}::uuid AND id = ${endpointId}::uuid
      ), claimed AS (
        UPDATE webhook_deliveries d SET started_at = now(), updated_at = now()
        FROM endpoint e
        WHERE e.is_active AND e.disabled_at IS NULL
          AND d.id = (SELECT id FROM webhook_deliveries
                      WHERE endpoint_id = e.id AND message_id = ${messageId} AND attempt = ${attempt})
          AND d.status = 'PENDING' AND d.started_at IS NULL
        RETURNING d.id, d.request_id
      ), inserted AS (
        INSERT INTO webhook_deliveries
          (id, community_id, endpoint_id, message_id, event_type, attempt, status, next_attempt_at, started_at, updated_at)
        SELECT ${randomUUID()}::uuid, community_id, id, ${messageId}, ${eventType}, ${attempt}, 'PENDING', now(), now(), now()
        FROM endpoint WHERE is_active AND disabled_at IS NULL AND NOT EXISTS (SELECT 1 FROM claimed)
        ON CONFLICT (endpoint_id, message_id, attempt) DO NOTHING
        RETURNING id
      )
      SELECT e.url, e.is_active, e.disabled_at, e.consecutive_failures, e.failing_since, e.last_success_at,
             COALESCE((SELECT id FROM claimed), (SELECT id FROM inserted)) AS delivery_id,
             (SELECT request_id FROM claimed) AS request_id,
             ${Prisma.raw(SECRETS_VERSION)} AS secrets_version
      FROM endpoint e`;
    const row = rows[0];
    if (!row) return { endpoint: null, deliveryId: null, requestId: null, secretsVersion: null };
    const { delivery_id, request_id, secrets_version, ...endpoint } = row;
    return { endpoint, deliveryId: delivery_id, requestId: request_id, secretsVersion: secrets_version };
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

  /** Closes many claimed attempts, and writes their retries, in one statement (see finish). */
  private async finishBatch(items: readonly Finish[]): Promise<boolean[]> {
    const rows = await this.prisma.$queryRaw<{ id: string }[]>`
      WITH outcome AS (
        SELECT * FROM unnest(${items.map((f) => f.id)}::uuid[], ${items.map((f) => f.communityId)}::uuid[],
                             ${items.map((f) => (f.result.ok ? 'SUCCESS' : 'FAILED'))}::"DeliveryStatus"[],
                             ${items.map((f) => f.result.status)}::int[], ${items.map((f) => f.result.responseBody)}::text[],
                             ${items.map((f) => f.result.durationMs)}::int[], ${items.map((f) => f.result.error)}::text[],
                             ${items.map((f) => f.next?.attempt ?? null)}::int[], ${items.map((f) => f.next?.delayMs ?? null)}::bigint[])
          AS o(id, community_id, status, response_status, response_body, duration_ms, error, next_attempt, delay_ms)
      ), closed AS (
        UPDATE webhook_deliveries d
        SET status = o.status, response_status = o.response_status, response_body = o.response_body,
            duration_ms = o.duration_ms, error = o.error, next_attempt_at = NULL, updated_at = now()
        FROM outcome o
        WHERE d.community_id = o.community_id AND d.id = o.id AND d.status = 'PENDING'
        RETURNING d.id, d.community_id, d.endpoint_id, d.message_id, d.event_type, d.request_id, o.next_attempt, o.delay_ms
      ), retry AS (
        INSERT INTO webhook_deliveries
          (id, community_id, endpoint_id, message_id, event_type, attempt, status, next_attempt_at, request_id, updated_at)
        SELECT gen_random_uuid(), community_id, endpoint_id, message_id, event_type, next_attempt, 'PENDING',
               now() + delay_ms * interval '1 millisecond', request_id, now()
        FROM closed WHERE next_attempt IS NOT NULL
        ON CONFLICT (endpoint_id, message_id, attempt) DO NOTHING
      )
      SELECT id FROM closed`;
    const closed = new Set(rows.map((r) => r.id));
    return items.map((f) => closed.has(f.id));
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
  async cancelWaiting(communityId: string, endpointId: string, reason: string): Promise<void> {
    await this.prisma.webhookDelivery.updateMany({
      where: { communityId, endpointId, status: 'PENDING', startedAt: null },
      data: { status: 'FAILED', error: reason, nextAttemptAt: null },
    });
  }

  /**
   * Sweep, part one: claims older than `expiryMs` (longer than any send can take) belong to a worker
   * that stopped mid-send. Closes up to `limit` of them as FAILED with OUTCOME_UNKNOWN (the request
   * may have been sent: the log keeps one record per request) and returns them, in the caller's
   * transaction so that their retries are written in the same commit.
   */
  async closeAbandoned(tx: Tx, expiryMs: number, limit: number): Promise<AbandonedAttempt[]> {
    const rows = await tx.$queryRaw<(AttemptRow & { request_id: string | null })[]>`
      WITH stale AS (
        SELECT id FROM webhook_deliveries
        WHERE status = 'PENDING' AND started_at IS NOT NULL
          AND started_at < now() - ${expiryMs} * interval '1 millisecond'
        ORDER BY started_at LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      )
      UPDATE webhook_deliveries d
      SET status = 'FAILED', error = ${OUTCOME_UNKNOWN}, next_attempt_at = NULL, updated_at = now()
      FROM stale WHERE d.id = stale.id AND d.status = 'PENDING'
      RETURNING d.id, d.community_id, d.endpoint_id, d.message_id, d.event_type, d.attempt, d.request_id`;
    return rows.map((r) => ({
      id: r.id,
      communityId: r.community_id,
      endpointId: r.endpoint_id,
      messageId: r.message_id,
      eventType: r.event_type,
      attempt: r.attempt,
      requestId: r.request_id,
    }));
  }

  /** Writes the next attempts of closed ones, PENDING and due after their delay (unique per attempt). */
  async insertRetries(tx: Tx, retries: { of: AbandonedAttempt; next: NextAttempt }[]): Promise<void> {
    if (retries.length === 0) return;
    await tx.$executeRaw`
      INSERT INTO webhook_deliveries
        (id, community_id, endpoint_id, message_id, event_type, attempt, status, next_attempt_at, request_id, updated_at)
      SELECT gen_random_uuid(), r.community_id, r.endpoint_id, r.message_id, r.event_type, r.attempt, 'PENDING',
             now() + r.delay_ms * interval '1 millisecond', r.request_id, now()
      FROM unnest(${retries.map((r) => r.of.communityId)}::uuid[], ${retries.map((r) => r.of.endpointId)}::uuid[],
                  ${retries.map((r) => r.of.messageId)}::text[], ${retries.map((r) => r.of.eventType)}::text[],
                  ${retries.map((r) => r.next.attempt)}::int[], ${retries.map((r) => r.next.delayMs)}::bigint[],
                  ${retries.map((r) => r.of.requestId)}::text[])
        AS r(community_id, endpoint_id, message_id, event_type, attempt, delay_ms, request_id)
      ON CONFLICT (endpoint_id, message_id, attempt) DO NOTHING`;
  }

  /**
   * Sweep, part two: a page of unclaimed attempts that are due, oldest first, after the keyset
   * position `after`, with the event body their job carries (joined from the outbox).
   */
  async dueUnclaimed(tx: Tx, after: { at: Date; id: string } | null, limit: number): Promise<DueAttempt[]> {
    const afterAt = after?.at ?? new Date(0);
    const afterId = after?.id ?? '00000000-0000-0000-0000-000000000000';
    const rows = await tx.$queryRaw<
      (AttemptRow & { next_attempt_at: Date; outbox_id: bigint | null; payload: EventBody | null })[]
    >`
      SELECT d.id, d.community_id, d.endpoint_id, d.message_id, d.event_type, d.attempt, d.next_attempt_at,
             o.id AS outbox_id, o.payload
      FROM webhook_deliveries d
      LEFT JOIN outbox_events o ON o.message_id = d.message_id
      WHERE d.status = 'PENDING' AND d.started_at IS NULL AND d.next_attempt_at <= now()
        AND (d.next_attempt_at, d.id) > (${afterAt}, ${afterId}::uuid)
      ORDER BY d.next_attempt_at, d.id
      LIMIT ${limit}`;
    return rows.map((r) => ({
      id: r.id,
      communityId: r.community_id,
      endpointId: r.endpoint_id,
      messageId: r.message_id,
      eventType: r.event_type,
      attempt: r.attempt,
      nextAttemptAt: r.next_attempt_at,
      outboxId: r.outbox_id === null ? null : r.outbox_id.toString(),
      payload: r.payload,
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
   * The test route's attempt, recorded claimed (PENDING, started now) before it is sent. Its event
   * body is kept in the outbox, already relayed (the relay never sends it), so the delivery log
   * shows what was sent as for any other event.
   */
  async startTest(key: AttemptKey, body: EventBody, requestId: string | null): Promise<string> {
    const id = randomUUID();
    await this.prisma.$executeRaw`
      WITH body AS (
        INSERT INTO outbox_events (community_id, message_id, event_type, payload, relayed_at, request_id)
        VALUES (${key.communityId}::uuid, ${key.messageId}, ${key.eventType}, ${JSON.stringify(body)}::jsonb, now(), ${requestId})
      )
      INSERT INTO webhook_deliveries
        (id, community_id, endpoint_id, message_id, event_type, attempt, status, started_at, request_id, updated_at)
      VALUES (${id}::uuid, ${key.communityId}::uuid, ${key.endpointId}::uuid, ${key.messageId}, ${key.eventType},
              ${key.attempt}, 'PENDING', now(), ${requestId}, now())`;
    return id;
  }

  /** Records the test attempt's outcome and returns it as the API shows it. */
  async finishTest(
    id: string,
    communityId: string,
    result: SendResult,
    payload: EventBody,
  ): Promise<DeliveryView> {
    const row = await this.prisma.webhookDelivery.update({
      where: { communityId_id: { communityId, id } },
      data: {
        status: result.ok ? 'SUCCESS' : 'FAILED',
        responseStatus: result.status,
        responseBody: result.responseBody,
        durationMs: result.durationMs,
        error: result.error,
        nextAttemptAt: null,
      },
      select: DELIVERY_SELECT,
    });
    return { ...row, payload };
  }

  /**
   * A page of an endpoint's attempts, newest first (ties broken by id), each with the event body it
   * sent (joined from the outbox by message id, after the page is cut), and `total`, in ONE named
   * prepared statement (PrismaService.preparedQuery): the delivery log of a busy endpoint is read
   * often, and the ORM's three queries and per-row Date parsing were most of its cost. The page comes from the
   * (community_id, endpoint_id[, status], created_at, id) indexes. `total` is never counted (297 ms
   * at p99 for an endpoint of 1,000,000 attempts): it is the sum of the counter rows that the table's
   * triggers keep exact in the same transaction as every insert, status change and delete (see the
   * migration delivery_status_counters). Timestamps are read as ISO text, and the sort key stays in
   * PostgreSQL (parsing it into a Date per row was 4% of the route's CPU). Null: the community has
   * no such endpoint (checked in the same statement).
   */
  async list(
    communityId: string,
    endpointId: string,
    query: DeliveryPageQuery,
  ): Promise<DeliveryPage | null> {
    const status = query.status ? 'AND status = $5::"DeliveryStatus"' : '';
    const rows = await this.prisma.preparedRows<DeliveryPageRow>(
      query.status ? 'delivery-page-by-status' : 'delivery-page',
      `
        SELECT item.id, item.message_id, item.event_type, item.attempt, item.status, item.response_status,
               item.response_body, item.duration_ms, item.error, item.created_at, item.updated_at,
               item.next_attempt_at, item.request_id, item.payload, counter.total, counter.endpoint_found
          FROM (SELECT (SELECT coalesce(sum(value), 0) FROM webhook_delivery_counters
                         WHERE community_id = $1::uuid AND endpoint_id = $2::uuid ${status}) AS total,
                       EXISTS (SELECT 1 FROM webhook_endpoints
                                WHERE community_id = $1::uuid AND id = $2::uuid) AS endpoint_found) AS counter
          LEFT JOIN LATERAL (
            SELECT page.id::text AS id, page.message_id, page.event_type, page.attempt, page.status::text AS status,
                   page.response_status, page.response_body, page.duration_ms, page.error,
                   ${ISO('page.created_at')} AS created_at, ${ISO('page.updated_at')} AS updated_at,
                   ${ISO('page.next_attempt_at')} AS next_attempt_at, page.request_id, o.payload,
                   page.created_at AS sort_at, page.id AS sort_id
              FROM (SELECT * FROM webhook_deliveries
                     WHERE community_id = $1::uuid AND endpoint_id = $2::uuid ${status}
                     ORDER BY created_at DESC, id DESC
                     LIMIT $3 OFFSET $4) AS page
              LEFT JOIN outbox_events o ON o.message_id = page.message_id AND o.community_id = $1::uuid
          ) AS item ON true
         ORDER BY item.sort_at DESC, item.sort_id DESC`,
      [communityId, endpointId, query.limit, query.offset, ...(query.status ? [query.status] : [])],
    );
    const first = rows[0];
    if (!first?.[15]) return null;
    const total = Number(first[14]);
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

  // Resend and recover: every statement is scoped by community AND endpoint; the new
  // attempt is written PENDING and due now, so that if the enqueue that follows is lost, the sweep
  // still sends it.

  /** The event a delivery belongs to, and whether its body is still stored; null: no such delivery here. */
  async findResendSource(
    communityId: string,
    endpointId: string,
    deliveryId: string,
  ): Promise<{ messageId: string; bodyStored: boolean } | null> {
    const rows = await this.prisma.$queryRaw<{ message_id: string; body_stored: boolean }[]>`
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
  async insertResendAttempt(
    communityId: string,
    endpointId: string,
    messageId: string,
  ): Promise<ResentAttempt | null> {
    const rows = await this.prisma.$queryRaw<ResentRow[]>`
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
             d.request_id, o.id AS outbox_id, o.payload
      FROM webhook_deliveries d
      JOIN outbox_events o ON o.message_id = d.message_id AND o.community_id = d.community_id
      WHERE ${recoverable(communityId, endpointId, window)} ${after}
      ORDER BY d.created_at, d.id
      LIMIT ${page.limit}
    ), inserted AS (
      INSERT INTO webhook_deliveries
        (id, community_id, endpoint_id, message_id, event_type, attempt, status, next_attempt_at, updated_at, request_id)
      SELECT gen_random_uuid(), ${communityId}::uuid, ${endpointId}::uuid, f.message_id, f.event_type,
             f.attempt + 1, 'PENDING', now(), now(), f.request_id
      FROM failed f
      ON CONFLICT (endpoint_id, message_id, attempt) DO NOTHING
      RETURNING id, endpoint_id, message_id, event_type, attempt, status, created_at, updated_at, next_attempt_at, request_id
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
   * Per endpoint of the community, the attempts that ended in the last 24 hours and how many
   * succeeded (from the (community_id, endpoint_id, created_at) index; endpoints without any are absent).
   */
  async lastDayOutcomes(communityId: string): Promise<Map<string, { attempts: number; succeeded: number }>> {
    const rows = await this.prisma.$queryRaw<{ endpoint_id: string; attempts: number; succeeded: number }[]>`
      SELECT endpoint_id, count(*) FILTER (WHERE status <> 'PENDING')::int AS attempts,
             count(*) FILTER (WHERE status = 'SUCCESS')::int AS succeeded
      FROM webhook_deliveries
      WHERE community_id = ${communityId}::uuid AND created_at >= now() - interval '24 hours'
      GROUP BY endpoint_id`;
    return new Map(rows.map((r) => [r.endpoint_id, { attempts: r.attempts, succeeded: r.succeeded }]));
  }
}
