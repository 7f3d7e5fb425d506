import { Injectable } from '@nestjs/common';
import { PrismaService } from '../../../prisma/prisma.service';
import type { EventBody } from '../../events/event-body';
import type { EndpointState } from '../core/webhook-endpoints.store';
import { type AttemptClaim, SECRETS_VERSION } from './attempt-claim';

/** One outbox event the relay took, with the endpoints whose attempt 1 it wrote (in creation order). */
export interface RelayedEvent {
  outboxId: string;
  communityId: string;
  messageId: string;
  eventType: string;
  payload: EventBody;
  /** the raising request's trace context; null when it was not traced */
  traceparent: string | null;
  endpointIds: string[];
  /** those of endpointIds that are FIFO: their jobs ask for their queue's head */
  fifoEndpointIds: string[];
  /** the attempts the statement wrote already claimed (RelayLimits.claims), for the relaying worker to send */
  claims: RelayClaim[];
}

/**
 * An event the relay could not take yet: subscribers of its type have a content filter the statement
 * holds no decision for (at the filter's current version). The worker decides (EndpointFilters) and
 * passes its decisions to the next statement; nothing of the event, nor of any event after it, is
 * written before.
 */
export interface UndecidedEvent {
  outboxId: string;
  payload: EventBody;
  /** the filtered subscribers without a decision, each with its filter's version */
  endpoints: { id: string; version: number }[];
}

/** Whether an event matches an endpoint's filter at `version` (the relay ignores it at any other). */
export interface FilterDecision {
  outboxId: string;
  endpointId: string;
  version: number;
  matches: boolean;
}

/** What one relay statement did: the events it relayed, and those it left for want of a filter decision. */
export interface RelayedBatch {
  relayed: RelayedEvent[];
  undecided: UndecidedEvent[];
}

/** An attempt 1 the relay wrote claimed, with what a claim reads (DeliveryAttemptsStore.claim). */
export interface RelayClaim {
  endpointId: string;
  claim: AttemptClaim;
}

/**
 * How much one relay statement takes: outbox rows locked, and the attempts after which it stops taking
 * rows; and how many of its first attempts on unordered endpoints it writes already claimed, for the
 * relaying worker to send at once without a claim statement of their own (0: none).
 */
export interface RelayLimits {
  rows: number;
  attempts: number;
  claims: number;
  /** endpoints whose attempts are not written claimed (the worker has no free slot of theirs) */
  notClaimedFor?: string[];
  /** the worker's filter decisions for events of earlier statements' `undecided` */
  decisions?: readonly FilterDecision[];
}

/** A claim as the relay statement answers it: JSON, so its times are epoch milliseconds. */
interface RelayClaimRow {
  endpointId: string;
  deliveryId: string;
  requestId: string | null;
  traceparent: string | null;
  url: string;
  consecutiveFailures: number;
  failingSince: number | null;
  lastSuccessAt: number | null;
  customHeaders: EndpointState['custom_headers'];
  rateLimit: number | null;
  retryScheduleMs: number[];
  timeoutMs: number | null;
  transportVersion: number;
  secretsVersion: number | null;
}

/** One chunk of the outbox pruner: the candidates it looked at, how many it deleted, the last id. */
export interface PrunedChunk {
  seen: number;
  deleted: number;
  last: bigint | null;
}

/**
 * The worker's statements on the outbox (`outbox_events`, which the API writes with each change):
 * the relay, which fans a batch out into attempt 1 of each of its deliveries (the only insert of a
 * first attempt into `webhook_deliveries`: one of that table's stores, README.md in this folder,
 * "State"), the pruner and the relay's lag.
 */
@Injectable()
export class WorkerOutboxStore {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * The relay's whole batch in ONE autocommitted statement (no interactive transaction: Prisma's
   * look-lock-read-insert-mark-commit round trips were most of each event's latency):
   *
   * 1. locks up to `rows` unrelayed outbox rows in id order, FOR UPDATE SKIP LOCKED, so two relays
   *    never take the same row;
   * 2. pairs each with its community's endpoints subscribed to its type (an operational event's
   *    subject excepted) whose content filter lets it through: an endpoint without a filter always,
   *    one with a filter when `decisions` says the event matches at the filter's current version;
   * 3. keeps rows in id order while the attempts so far stay within `attempts` (always the first
   *    row, however wide its fan-out) and no row so far waits for a filter decision (an endpoint's
   *    FIFO queue follows outbox order, so nothing may pass an undecided event); the others stay
   *    unrelayed for the next batch;
   * 4. inserts attempt 1 of each pair PENDING, due now, with the event's request id, its trace context and its outbox id
   *    as its place in the endpoint's queue (the order a FIFO endpoint sends in; a pair that
   *    already has its row keeps it), and marks the kept rows relayed, in the same commit;
   * 5. records each kept row as missed by the community's endpoints subscribed to its type that are
   *    paused or auto-disabled and whose filter lets it through (`webhook_missed_events`, the same
   *    subject rule), for recover's `missed` (docs/product-decisions.md#5-webhooks, "Recover"). Kept
   *    apart from the fan-out: it does not count toward `attempts` and writes nothing when every
   *    subscriber takes deliveries.
   *
   * 6. writes the first `claims` of those attempts on unordered endpoints not in `notClaimedFor` (in
   *    the order of the events, then of their endpoints) already claimed, `started_at = now()`, and returns them with
   *    their endpoint as a claim reads it: the relaying worker sends them at once (LocalDeliveries),
   *    without a claim statement between the relay and the send (the latency from commit to receipt).
   *    A pair whose row already exists is not claimed here.
   *
   * A statement that claimed nothing commits without waiting for its WAL flush (synchronous_commit
   * off for this transaction only: one fsync less on each event's path, see
   * bench/README.md#delivery-latency-benchdelivery-latencymjs). Safe because relaying is idempotent: a
   * PostgreSQL crash can only lose a relay whose attempts nobody
   * has claimed yet (a claim's own, synchronous commit flushes the WAL before it, and a send waits
   * for the claim), so the rows come back unrelayed and are relayed again: existing rows are kept,
   * job ids are the same, and a job that runs first claims by inserting its row. A statement that
   * claimed commits as a claim does, synchronously: a lost claim could let its attempt be sent twice
   * under one record.
   *
   * 7. returns, beside the kept rows (each with its endpoint ids and claims, for the jobs), the
   *    locked rows left for want of a decision, with their bodies and the filtered subscribers to
   *    decide on (EndpointFilters); with no filtered subscriber in the batch there are none and the
   *    statement does what it did before filters existed.
   */
  async relayOutboxBatch(limits: RelayLimits): Promise<RelayedBatch> {
    const { rows } = await this.prisma.pool.query<RelayRow>({
      // prepared once per connection: the statement is planned once, not per batch
      name: this.prisma.statementName('relay-outbox-batch'),
      text: `
        WITH locked AS MATERIALIZED (
          SELECT id, community_id, message_id, event_type, payload, request_id, traceparent, created_at, subject
          FROM outbox_events
          WHERE relayed_at IS NULL
          ORDER BY id
          LIMIT $1
          FOR UPDATE SKIP LOCKED
        ), decided AS MATERIALIZED (
          SELECT * FROM unnest($5::bigint[], $6::uuid[], $7::int[], $8::boolean[])
            AS d(outbox_id, endpoint_id, version, matches)
        ), subscribed AS MATERIALIZED (
          -- (2.) each row's subscribers, taking deliveries or not; passes: its filter lets the event
          -- through (null: no decision at the filter's current version yet)
          SELECT l.id, e.id AS endpoint_id, e.created_at, e.ordering, e.filter_version,
                 e.is_active AND e.disabled_at IS NULL AS takes,
                 CASE WHEN e.filter IS NULL THEN true ELSE d.matches END AS passes
          FROM locked l
          JOIN webhook_endpoints e
            ON e.community_id = l.community_id AND l.event_type = ANY(e.events)
               -- an operational event (webhook.*) is never sent to the endpoint it is about
               AND NOT (l.event_type LIKE 'webhook.%' AND e.id::text = l.payload #>> '{data,endpointId}')
          LEFT JOIN decided d ON d.outbox_id = l.id AND d.endpoint_id = e.id AND d.version = e.filter_version
        ), fanned AS MATERIALIZED (
          SELECT l.id,
                 coalesce(array_agg(s.endpoint_id::text ORDER BY s.created_at, s.endpoint_id)
                            FILTER (WHERE s.takes AND s.passes), '{}') AS endpoint_ids,
                 coalesce(array_agg(s.endpoint_id::text) FILTER (WHERE s.takes AND s.passes AND s.ordering = 'fifo'),
                          '{}') AS fifo_endpoint_ids,
                 count(*) FILTER (WHERE s.takes AND s.passes) AS attempts,
                 coalesce(bool_or(s.endpoint_id IS NOT NULL AND s.passes IS NULL), false) AS undecided
          FROM locked l LEFT JOIN subscribed s ON s.id = l.id
          GROUP BY l.id
        ), taken AS MATERIALIZED (
          SELECT l.*, f.endpoint_ids, f.fifo_endpoint_ids
          FROM (SELECT id, endpoint_ids, fifo_endpoint_ids, row_number() OVER w AS position, sum(attempts) OVER w AS running,
                       bool_or(undecided) OVER w AS blocked
                FROM fanned WINDOW w AS (ORDER BY id)) f
          JOIN locked l ON l.id = f.id
          WHERE NOT f.blocked AND (f.position = 1 OR f.running <= $2)
        ), pairs AS MATERIALIZED (
          SELECT t.id AS outbox_id, t.community_id, t.message_id, t.event_type, t.request_id, t.traceparent,
                 t.subject, e.endpoint_id::uuid AS endpoint_id, c.claimable,
                 count(*) FILTER (WHERE c.claimable) OVER (ORDER BY t.id, e.position) AS claimable_position
          FROM taken t CROSS JOIN LATERAL unnest(t.endpoint_ids) WITH ORDINALITY AS e(endpoint_id, position)
          CROSS JOIN LATERAL (SELECT NOT e.endpoint_id = ANY(t.fifo_endpoint_ids)
                                     AND NOT e.endpoint_id = ANY($4::text[]) AS claimable) c
        ), inserted AS (
          INSERT INTO webhook_deliveries
            (id, community_id, endpoint_id, message_id, event_type, attempt, status, next_attempt_at, request_id,
             traceparent, queue_position, updated_at, started_at, subject)
          SELECT gen_random_uuid(), p.community_id, p.endpoint_id, p.message_id, p.event_type, 1, 'PENDING', now(),
                 p.request_id, p.traceparent, p.outbox_id, now(),
                 CASE WHEN p.claimable AND p.claimable_position <= $3 THEN now() END, p.subject
          FROM pairs p
          ON CONFLICT (message_id, endpoint_id, attempt) DO NOTHING
          RETURNING id, endpoint_id, message_id, started_at, request_id, traceparent
        ), claims AS (
          -- (6.) the attempts written claimed, with their endpoint as a claim reads it
          SELECT i.message_id, json_agg(json_build_object(
                   'endpointId', e.id, 'deliveryId', i.id, 'requestId', i.request_id, 'traceparent', i.traceparent,
                   'url', e.url,
                   'consecutiveFailures', e.consecutive_failures,
                   'failingSince', extract(epoch FROM e.failing_since) * 1000,
                   'lastSuccessAt', extract(epoch FROM e.last_success_at) * 1000,
                   'customHeaders', e.custom_headers, 'rateLimit', e.rate_limit,
                   'retryScheduleMs', e.retry_schedule_ms, 'timeoutMs', e.timeout_ms,
                   'transportVersion', e.transport_version,
                   'secretsVersion', ${SECRETS_VERSION}) ORDER BY e.created_at, e.id) AS claims
          FROM inserted i JOIN webhook_endpoints e ON e.id = i.endpoint_id
          WHERE i.started_at IS NOT NULL
          GROUP BY i.message_id
        ), missed AS (
          -- (5.) the subscribed endpoints that are paused or auto-disabled: recorded as missed, for recover
          INSERT INTO webhook_missed_events (community_id, endpoint_id, outbox_id, raised_at)
          SELECT t.community_id, s.endpoint_id, t.id, t.created_at
          FROM taken t JOIN subscribed s ON s.id = t.id AND NOT s.takes AND s.passes
          ON CONFLICT DO NOTHING
        ), marked AS (
          UPDATE outbox_events o SET relayed_at = now() FROM taken t WHERE o.id = t.id
        )
        SELECT t.id AS position, t.id::text AS "outboxId", t.community_id AS "communityId",
               t.message_id AS "messageId", t.event_type AS "eventType", t.payload, t.traceparent,
               t.endpoint_ids AS "endpointIds", t.fifo_endpoint_ids AS "fifoEndpointIds",
               coalesce(c.claims, '[]') AS claims, NULL::json AS undecided
        FROM taken t LEFT JOIN claims c ON c.message_id = t.message_id,
             (SELECT set_config('synchronous_commit',
                                CASE WHEN EXISTS (SELECT 1 FROM claims) THEN current_setting('synchronous_commit')
                                     ELSE 'off' END,
                                true)) AS commit_mode
        UNION ALL
        -- (7.) the rows left for want of a filter decision, with the filtered subscribers to decide on
        SELECT l.id, l.id::text, l.community_id, l.message_id, l.event_type, l.payload, l.traceparent, '{}', '{}',
               '[]', (SELECT json_agg(json_build_object('id', s.endpoint_id, 'version', s.filter_version))
                      FROM subscribed s WHERE s.id = l.id AND s.passes IS NULL)
        FROM fanned f JOIN locked l ON l.id = f.id
        WHERE f.undecided
        ORDER BY position`,
      values: [
        limits.rows,
        limits.attempts,
        limits.claims,
        limits.notClaimedFor ?? [],
        ...decisionColumns(limits.decisions ?? []),
      ],
    });
    const batch: RelayedBatch = { relayed: [], undecided: [] };
    for (const { position: _position, undecided, ...row } of rows) {
      if (undecided)
        batch.undecided.push({ outboxId: row.outboxId, payload: row.payload, endpoints: undecided });
      else batch.relayed.push({ ...row, claims: (row.claims as unknown as RelayClaimRow[]).map(relayClaim) });
    }
    return batch;
  }

  /**
   * Deletes, from a chunk of `limit` relayed rows after id `after` (in id order, so no statement
   * holds locks for long), those relayed longer than `relayedRetentionMs` ago none of whose
   * deliveries is PENDING or younger than `messageRetentionMs` (the log shows the body that was
   * sent; a retry or a resend sends it again) and that no endpoint missed less than
   * `messageRetentionMs` ago (recover may still send it).
   */
  async pruneRelayed(
    after: bigint,
    limit: number,
    relayedRetentionMs: number,
    messageRetentionMs: number,
  ): Promise<PrunedChunk> {
    const [chunk] = await this.prisma.$queryRaw<PrunedChunk[]>`
      WITH candidates AS (
        SELECT id, message_id FROM outbox_events
        WHERE id > ${after} AND relayed_at < now() - ${relayedRetentionMs} * interval '1 millisecond'
        ORDER BY id LIMIT ${limit}
      ), gone AS (
        DELETE FROM outbox_events o USING candidates c
        WHERE o.id = c.id AND NOT EXISTS (
          SELECT 1 FROM webhook_deliveries d
          WHERE d.message_id = c.message_id
            AND (d.status = 'PENDING' OR d.created_at > now() - ${messageRetentionMs} * interval '1 millisecond'))
          -- an endpoint that missed it may still recover it
          AND NOT EXISTS (
            SELECT 1 FROM webhook_missed_events m
            WHERE m.outbox_id = c.id AND m.raised_at > now() - ${messageRetentionMs} * interval '1 millisecond')
        RETURNING o.id
      )
      SELECT (SELECT count(*)::int FROM candidates) AS seen, (SELECT count(*)::int FROM gone) AS deleted,
             (SELECT max(id) FROM candidates) AS last`;
    return chunk;
  }

  /**
   * Forgets up to `limit` missed events raised more than `olderThanMs` ago (their bodies are past
   * retention by then; until this, recover counts them as expired). Returns how many.
   */
  async forgetMissed(olderThanMs: number, limit: number): Promise<number> {
    return this.prisma.$executeRaw`
      DELETE FROM webhook_missed_events m
      USING (SELECT community_id, endpoint_id, outbox_id FROM webhook_missed_events
             WHERE raised_at < now() - ${olderThanMs} * interval '1 millisecond'
             LIMIT ${limit}) old
      WHERE (m.community_id, m.endpoint_id, m.outbox_id) = (old.community_id, old.endpoint_id, old.outbox_id)`;
  }

  /** Seconds since the oldest unrelayed event was written; 0 when none waits. */
  async relayLagSeconds(): Promise<number> {
    // the partial index on id WHERE relayed_at IS NULL finds the oldest row at once
    const [row] = await this.prisma.$queryRaw<{ lag: number }[]>`
      SELECT COALESCE((SELECT EXTRACT(EPOCH FROM now() - created_at)::float8 FROM outbox_events
                       WHERE relayed_at IS NULL ORDER BY id LIMIT 1), 0) AS lag`;
    return Math.max(0, row.lag);
  }
}

/** A row of the relay statement: a relayed event, or one left undecided (`undecided` set). */
type RelayRow = RelayedEvent & { position: string; undecided: UndecidedEvent['endpoints'] | null };

/** The decisions as the statement's four parallel arrays ($5 to $8). */
function decisionColumns(decisions: readonly FilterDecision[]): [string[], string[], number[], boolean[]] {
  return [
    decisions.map((d) => d.outboxId),
    decisions.map((d) => d.endpointId),
    decisions.map((d) => d.version),
    decisions.map((d) => d.matches),
  ];
}

/** A claim the relay wrote, as DeliveryAttemptsStore.claim answers one (its endpoint takes deliveries). */
function relayClaim(row: RelayClaimRow): RelayClaim {
  const time = (ms: number | null) => (ms === null ? null : new Date(ms));
  return {
    endpointId: row.endpointId,
    claim: {
      endpoint: {
        url: row.url,
        is_active: true,
        disabled_at: null,
        consecutive_failures: row.consecutiveFailures,
        failing_since: time(row.failingSince),
        last_success_at: time(row.lastSuccessAt),
        custom_headers: row.customHeaders,
        rate_limit: row.rateLimit,
        ordering: 'unordered',
        retry_schedule_ms: row.retryScheduleMs,
        timeout_ms: row.timeoutMs,
        transport_version: row.transportVersion,
      },
      deliveryId: row.deliveryId,
      requestId: row.requestId,
      traceparent: row.traceparent,
      secretsVersion: row.secretsVersion,
    },
  };
}
