import { Injectable } from '@nestjs/common';
import { PrismaService, Tx } from '../../../prisma/prisma.service';
import type { FilterDocument } from './filter/event-filter';
import type { SealedHeaders } from './secrets/endpoint-headers';
import type { EndpointType } from './broker-transport/broker-destination';
import { jsonOrNull, transportData, type TransportWrite } from './endpoint-columns';

/** The endpoint row as a delivery attempt reads it before sending. */
export interface EndpointState {
  url: string;
  is_active: boolean;
  disabled_at: Date | null;
  consecutive_failures: number;
  failing_since: Date | null;
  last_success_at: Date | null;
  /** the custom headers to send, sealed (opened by the sender) */
  custom_headers: SealedHeaders | null;
  /** deliveries per second across every worker; null: no limit */
  rate_limit: number | null;
  /** 'fifo': one attempt in flight, in queue order, claimed through the FIFO head; 'unordered' otherwise */
  ordering: EndpointOrdering;
  /** the waits before attempts 2, 3, … in ms; empty: the platform's schedule (core/delivery-settings.ts) */
  retry_schedule_ms: number[];
  /** the send's timeout in ms; null: the platform's */
  timeout_ms: number | null;
  /** the version of its tls and auth (0: never set); the sender reads them once per version */
  transport_version: number;
}

/** How an endpoint's deliveries go out (docs/api.md#webhooks, "Ordering"). */
export const ENDPOINT_ORDERINGS = ['unordered', 'fifo'] as const;
export type EndpointOrdering = (typeof ENDPOINT_ORDERINGS)[number];

/** The endpoint columns a read route may show: the secret lives in another table and never here. */
export const WEBHOOK_SELECT = {
  id: true,
  communityId: true,
  url: true,
  events: true,
  description: true,
  isActive: true,
  disabledAt: true,
  consecutiveFailures: true,
  failingSince: true,
  lastSuccessAt: true,
  // sealed: the service shows each value masked, never this
  customHeaders: true,
  rateLimit: true,
  ordering: true,
  retryScheduleMs: true,
  timeoutMs: true,
  filter: true,
  // the key and the client secret sealed: the service shows summaries and a mask, never these
  tls: true,
  auth: true,
  transportVersion: true,
  type: true,
  // the credentials sealed: the service shows them masked in the url, never this
  destination: true,
  createdAt: true,
  updatedAt: true,
} as const;

/** An endpoint's content filter as the worker compiles it, with the version the relay checks. */
export interface StoredFilter {
  id: string;
  filter: FilterDocument | null;
  version: number;
}

/** last_success_at is kept to this precision, so a busy healthy endpoint is not written on every delivery. */
export const LAST_SUCCESS_PRECISION_MS = 1_000;

/**
 * What recording a success found: whether webhook.endpoint.failing had been raised for the streak, and,
 * when the call wrote, the endpoint's url.
 */
export interface RecordedSuccess {
  wasAnnounced: boolean;
  url: string | null;
}

/**
 * The one owner of `webhook_endpoints` (the API's management routes, the relay's fan-out and the
 * worker's failure counter). Every query is scoped by the community. The counter updates are atomic
 * SQL: many attempts of one endpoint finish concurrently, so read-modify-write would lose counts.
 */
@Injectable()
export class WebhookEndpointsStore {
  constructor(private readonly prisma: PrismaService) {}

  list(communityId: string) {
    return this.prisma.webhookEndpoint.findMany({
      where: { communityId },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      select: WEBHOOK_SELECT,
    });
  }

  find(communityId: string, id: string, tx: Tx = this.prisma) {
    return tx.webhookEndpoint.findUnique({
      where: { communityId_id: { communityId, id } },
      select: WEBHOOK_SELECT,
    });
  }

  /**
   * Serialises this community's creates (so two at cap-1 cannot both pass the count) and counts its
   * endpoints. NO KEY UPDATE, not UPDATE: rows that reference the community keep being written.
   */
  async lockCommunityAndCount(tx: Tx, communityId: string): Promise<number> {
    await tx.$queryRaw`SELECT 1 FROM communities WHERE id = ${communityId}::uuid FOR NO KEY UPDATE`;
    return tx.webhookEndpoint.count({ where: { communityId } });
  }

  /**
   * Locks the endpoint row (FOR UPDATE) for the rest of the transaction, so changes to its secrets
   * apply one after another; false when the community has no such endpoint.
   */
  async lockForSecretChange(tx: Tx, communityId: string, id: string): Promise<boolean> {
    const locked = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM webhook_endpoints WHERE community_id = ${communityId}::uuid AND id = ${id}::uuid FOR UPDATE`;
    return locked.length > 0;
  }

  create(
    tx: Tx,
    communityId: string,
    data: {
      url: string;
      events: string[];
      description: string;
      customHeaders?: SealedHeaders | null;
      rateLimit?: number | null;
      ordering?: EndpointOrdering;
      /** in ms; empty: the platform's schedule */
      retryScheduleMs?: number[];
      timeoutMs?: number | null;
      /** validated (compileFilter); null: every subscribed event */
      filter?: FilterDocument | null;
      /** fixed from here on; a broker type comes with its destination */
      type?: EndpointType;
    } & TransportWrite,
  ) {
    const { customHeaders, filter, tls, auth, destination, ...rest } = data;
    const transport = transportData({ tls: tls ?? undefined, auth: auth ?? undefined, destination });
    return tx.webhookEndpoint.create({
      data: {
        communityId,
        ...rest,
        customHeaders: jsonOrNull(customHeaders ?? null),
        filter: jsonOrNull(filter ?? null),
        ...transport,
        ...('transportVersion' in transport ? { transportVersion: 1 } : {}),
      },
      select: WEBHOOK_SELECT,
    });
  }

  update(
    tx: Tx,
    communityId: string,
    id: string,
    data: {
      url?: string;
      events?: string[];
      description?: string;
      isActive?: boolean;
      disabledAt?: null;
      consecutiveFailures?: number;
      failingSince?: null;
      /** undefined: unchanged; null: no custom headers */
      customHeaders?: SealedHeaders | null;
      /** undefined: unchanged; null: no limit */
      rateLimit?: number | null;
      /** a switch to 'fifo' forgets the last FIFO claim: the first one after it waits for what is in flight */
      ordering?: EndpointOrdering;
      /** undefined: unchanged; empty: the platform's schedule */
      retryScheduleMs?: number[];
      /** undefined: unchanged; null: the platform's timeout */
      timeoutMs?: number | null;
      /** undefined: unchanged; null: every subscribed event. A new value is a new version (the relay's check) */
      filter?: FilterDocument | null;
    } & TransportWrite,
  ) {
    const { customHeaders, filter, tls, auth, destination, ...rest } = data;
    return tx.webhookEndpoint.update({
      where: { communityId_id: { communityId, id } },
      data: {
        ...rest,
        ...(customHeaders === undefined ? {} : { customHeaders: jsonOrNull(customHeaders) }),
        ...(filter === undefined ? {} : { filter: jsonOrNull(filter), filterVersion: { increment: 1 } }),
        ...(data.ordering === 'fifo' ? { fifoClaim: null } : {}),
        ...transportData({ tls, auth, destination }),
      },
      select: WEBHOOK_SELECT,
    });
  }

  /**
   * The content filters of these endpoints with their versions (the worker compiles each version
   * once: EndpointFilters); an endpoint deleted meanwhile is left out.
   */
  async filters(ids: readonly string[]): Promise<StoredFilter[]> {
    return this.prisma.$queryRaw<StoredFilter[]>`
      SELECT id::text, filter, filter_version AS version FROM webhook_endpoints WHERE id = ANY(${ids}::uuid[])`;
  }

  /** How many endpoints' header sets each encryption key sealed. */
  async countHeadersByKey(): Promise<Map<string, number>> {
    const rows = await this.prisma.$queryRaw<{ key_id: string; count: number }[]>`
      SELECT custom_headers->>'keyId' AS key_id, count(*)::int AS count FROM webhook_endpoints
      WHERE custom_headers IS NOT NULL GROUP BY 1`;
    return new Map(rows.map((row) => [row.key_id, row.count]));
  }

  /**
   * Locks up to `limit` endpoints whose headers are sealed under these keys (not those in `skip`)
   * and reads them; rows another transaction holds are skipped, not waited for (SKIP LOCKED).
   */
  lockHeadersSealedUnder(
    tx: Tx,
    keyIds: string[],
    skip: string[],
    limit: number,
  ): Promise<{ id: string; custom_headers: SealedHeaders }[]> {
    return tx.$queryRaw`
      SELECT id, custom_headers FROM webhook_endpoints
       WHERE custom_headers->>'keyId' = ANY(${keyIds}::text[]) AND NOT (id = ANY(${skip}::uuid[]))
       ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED`;
  }

  /**
   * Up to `limit` endpoints that have custom headers, in id order after `afterId` (null: from the first),
   * of one community or (null) of all: the pages of `webhooks:check-headers`, which only reads.
   */
  pageWithHeaders(
    communityId: string | null,
    afterId: string | null,
    limit: number,
  ): Promise<{ id: string; community_id: string; custom_headers: SealedHeaders }[]> {
    return this.prisma.$queryRaw`
      SELECT id, community_id, custom_headers FROM webhook_endpoints
       WHERE custom_headers IS NOT NULL
         AND (${communityId}::uuid IS NULL OR community_id = ${communityId}::uuid)
         AND (${afterId}::uuid IS NULL OR id > ${afterId}::uuid)
       ORDER BY id LIMIT ${limit}`;
  }

  /** Replaces the sealed form of the endpoint's headers (the same headers under another key). */
  async resealHeaders(tx: Tx, id: string, sealed: SealedHeaders): Promise<void> {
    await tx.$executeRaw`
      UPDATE webhook_endpoints SET custom_headers = ${JSON.stringify(sealed)}::jsonb WHERE id = ${id}::uuid`;
  }

  /** Deletes the endpoint (its secrets and delivery log cascade); false when there was none. */
  /**
   * Deletes the endpoint (its secrets, attempts and counters go with it by cascade) and its hourly
   * figures in the same statement: those have no foreign key, so that the worker's finish takes no
   * lock on the endpoint's row (prisma/migrations/20261126191000_webhook_attempt_stats).
   */
  async remove(communityId: string, id: string): Promise<boolean> {
    const [row] = await this.prisma.$queryRaw<{ deleted: number }[]>`
      WITH gone AS (
        DELETE FROM webhook_endpoints WHERE community_id = ${communityId}::uuid AND id = ${id}::uuid RETURNING id
      ), figures AS (
        DELETE FROM webhook_attempt_stats s USING gone
         WHERE s.community_id = ${communityId}::uuid AND s.endpoint_id = gone.id
      )
      SELECT count(*)::int AS deleted FROM gone`;
    return row.deleted > 0;
  }

  /**
   * Resets the failure counter and notes the success (a no-op when another success just did), in one
   * statement on `db` (a transaction's client, or the service itself for a statement of its own).
   * Answers whether webhook.endpoint.failing had been raised for the streak (null when the endpoint is
   * gone) and, when this call wrote, the endpoint's url. With `keepAnnounced`, an announced streak is
   * left as it is: its end raises webhook.endpoint.recovered, which the caller must write in the same
   * transaction as the reset, so it asks again in one (EndpointHealth.recordSuccess).
   */
  async recordSuccess(
    db: Tx | PrismaService,
    communityId: string,
    endpointId: string,
    { keepAnnounced }: { keepAnnounced: boolean },
  ): Promise<RecordedSuccess | null> {
    const [recorded] = await this.recordSuccesses(db, [{ communityId, endpointId }], { keepAnnounced });
    return recorded;
  }

  /**
   * recordSuccess for several endpoints in one statement, one answer per item in order (EndpointHealth
   * sends the successes of many endpoints together). The rows are locked in id order, so two of these
   * statements running at once never wait on each other in a cycle.
   */
  async recordSuccesses(
    db: Tx | PrismaService,
    items: readonly { communityId: string; endpointId: string }[],
    { keepAnnounced }: { keepAnnounced: boolean },
  ): Promise<(RecordedSuccess | null)[]> {
    const rows = await db.$queryRaw<{ url: string | null; was_announced: boolean | null }[]>`
      WITH wanted AS (
        SELECT * FROM unnest(${items.map((i) => i.communityId)}::uuid[], ${items.map((i) => i.endpointId)}::uuid[])
          WITH ORDINALITY AS w(community_id, endpoint_id, n)
      ), before AS (
        SELECT e.id, e.failing_announced FROM webhook_endpoints e
          JOIN wanted w ON w.community_id = e.community_id AND w.endpoint_id = e.id
         ORDER BY e.id
           FOR NO KEY UPDATE OF e
      ), reset AS (
        UPDATE webhook_endpoints e
        SET consecutive_failures = 0, failing_since = NULL, last_success_at = now(), failing_announced = false
        FROM before b
        WHERE e.id = b.id AND NOT (${keepAnnounced}::boolean AND b.failing_announced)
          AND (e.consecutive_failures <> 0 OR e.failing_since IS NOT NULL OR e.failing_announced
               OR e.last_success_at IS NULL OR e.last_success_at < now() - ${LAST_SUCCESS_PRECISION_MS} * interval '1 millisecond')
        RETURNING e.id, e.url
      )
      SELECT r.url, b.failing_announced AS was_announced
        FROM wanted w LEFT JOIN before b ON b.id = w.endpoint_id LEFT JOIN reset r ON r.id = w.endpoint_id
       ORDER BY w.n`;
    return rows.map((row) =>
      row.was_announced === null ? null : { wasAnnounced: row.was_announced, url: row.url },
    );
  }

  /**
   * Counts one failure (the streak starts at the first failure after the last success); when the
   * count reaches `announceAt` and the streak was not announced yet, marks it announced and says so.
   */
  async recordFailure(
    tx: Tx,
    communityId: string,
    endpointId: string,
    announceAt: number,
  ): Promise<{ url: string; consecutiveFailures: number; announce: boolean } | null> {
    const rows = await tx.$queryRaw<{ url: string; consecutive_failures: number; was_announced: boolean }[]>`
      WITH before AS (
        SELECT id, failing_announced FROM webhook_endpoints
        WHERE community_id = ${communityId}::uuid AND id = ${endpointId}::uuid FOR NO KEY UPDATE
      )
      UPDATE webhook_endpoints e
      SET consecutive_failures = e.consecutive_failures + 1, failing_since = COALESCE(e.failing_since, now()),
          failing_announced = e.failing_announced OR e.consecutive_failures + 1 >= ${announceAt}
      FROM before b WHERE e.id = b.id
      RETURNING e.url, e.consecutive_failures, b.failing_announced AS was_announced`;
    const row = rows[0];
    if (!row) return null;
    return {
      url: row.url,
      consecutiveFailures: row.consecutive_failures,
      announce: !row.was_announced && row.consecutive_failures >= announceAt,
    };
  }

  /**
   * Disables the endpoint when its streak reached `minFailures` and lasted `afterMs`; returns the
   * failure count when this call disabled it, else null.
   */
  async disableIfFailing(
    tx: Tx,
    communityId: string,
    endpointId: string,
    minFailures: number,
    afterMs: number,
  ): Promise<number | null> {
    const disabled = await tx.$queryRaw<{ consecutive_failures: number }[]>`
      UPDATE webhook_endpoints
      SET is_active = false, disabled_at = now(), updated_at = now()
      WHERE community_id = ${communityId}::uuid AND id = ${endpointId}::uuid
        AND is_active AND disabled_at IS NULL
        AND consecutive_failures >= ${minFailures}
        AND failing_since <= now() - ${afterMs} * interval '1 millisecond'
      RETURNING consecutive_failures`;
    return disabled[0]?.consecutive_failures ?? null;
  }

  /** How many endpoints are disabled, across communities (the worker's metrics). */
  countDisabled(): Promise<number> {
    return this.prisma.webhookEndpoint.count({ where: { disabledAt: { not: null } } });
  }

  /**
   * Disables the endpoint at once (the target answered 410 Gone); returns its url and failure count
   * when this call disabled it, else null.
   */
  async disable(
    tx: Tx,
    communityId: string,
    endpointId: string,
  ): Promise<{ url: string; consecutiveFailures: number } | null> {
    const rows = await tx.$queryRaw<{ url: string; consecutive_failures: number }[]>`
      UPDATE webhook_endpoints SET is_active = false, disabled_at = now(), updated_at = now()
      WHERE community_id = ${communityId}::uuid AND id = ${endpointId}::uuid AND disabled_at IS NULL
      RETURNING url, consecutive_failures`;
    return rows[0] ? { url: rows[0].url, consecutiveFailures: rows[0].consecutive_failures } : null;
  }
}
