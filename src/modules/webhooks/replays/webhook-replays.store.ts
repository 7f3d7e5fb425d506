import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { PrismaService } from '../../../prisma/prisma.service';
import {
  countByEndpointStatement,
  ReplaySelection,
  type ReplayStatus,
} from '../core/replays/replay-selection';

/** A replay as the API shows it (docs/api.md#bulk-replay). */
export interface ReplayView {
  id: string;
  state: 'queued' | 'running' | 'done' | 'cancelled';
  total: number;
  queued: number;
  skipped: number;
  createdAt: Date;
  finishedAt: Date | null;
  /** what it selects, as created: the window, the endpoints (every one when the request named none), the rest */
  since: Date;
  until: Date;
  endpointIds: string[];
  eventTypes: string[] | null;
  status: ReplayStatus;
  responseStatus: string[] | null;
}

interface ReplayRow {
  id: string;
  state: ReplayView['state'];
  total: number;
  queued: number;
  skipped: number;
  created_at: Date;
  finished_at: Date | null;
  since: Date;
  until: Date;
  endpoint_ids: string[];
  event_types: string[] | null;
  status_filter: ReplayStatus;
  response_status: string[] | null;
}

const VIEW_COLUMNS =
  'id, state, total, queued, skipped, created_at, finished_at, since, until, endpoint_ids::text[] AS endpoint_ids, event_types, status_filter, response_status';

function toView(row: ReplayRow): ReplayView {
  return {
    id: row.id,
    state: row.state,
    total: row.total,
    queued: row.queued,
    skipped: row.skipped,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
    since: row.since,
    until: row.until,
    endpointIds: row.endpoint_ids,
    eventTypes: row.event_types,
    status: row.status_filter,
    responseStatus: row.response_status,
  };
}

/**
 * The owner of `webhook_replays` on the API side: the dry run's count, the create with its per-community cap,
 * reads, cancel. The workers' batches are in worker/replay-batches.store.ts. Every statement names the community.
 */
@Injectable()
export class WebhookReplaysStore {
  constructor(private readonly prisma: PrismaService) {}

  /** The selection's size per endpoint (the endpoints with some), in ONE statement: the dry run. */
  async countByEndpoint(selection: ReplaySelection): Promise<Record<string, number>> {
    const rows = await this.prisma.$queryRaw<{ endpoint_id: string; n: number }[]>(
      countByEndpointStatement(selection),
    );
    return Object.fromEntries(rows.filter((r) => r.n > 0).map((r) => [r.endpoint_id, r.n]));
  }

  /**
   * Counts the selection, then writes the replay, queued; null when the community already has `maxActive`
   * replays queued or running. The count runs first, on its own: over 10^6 messages it takes a while, and a
   * transaction held (with the community's lock) for as long would block the community's other creates and
   * outlive Prisma's interactive-transaction timeout. `total` is what the selection held at the count; the
   * batches select again as they go (docs/api.md#bulk-replay). The cap's check and the insert of one
   * community are serialised by a transaction-scoped advisory lock on it, so two creates at once cannot both
   * pass the cap.
   */
  async create(selection: ReplaySelection, maxActive: number): Promise<ReplayView | null> {
    const total = Object.values(await this.countByEndpoint(selection)).reduce((sum, n) => sum + n, 0);
    return this.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${'webhook_replays:' + selection.communityId}, 0))`;
      const [{ active }] = await tx.$queryRaw<{ active: number }[]>`
        SELECT count(*)::int AS active FROM webhook_replays
         WHERE community_id = ${selection.communityId}::uuid AND state IN ('queued', 'running')`;
      if (active >= maxActive) return null;
      const [row] = await tx.$queryRawUnsafe<ReplayRow[]>(
        `INSERT INTO webhook_replays
           (id, community_id, endpoint_ids, event_types, status_filter, response_status, since, until, total,
            cursor_created_at)
         VALUES ($1::uuid, $2::uuid, $3::uuid[], $4::text[], $5, $6::text[], $7, $8, $9, $7)
         RETURNING ${VIEW_COLUMNS}`,
        randomUUID(),
        selection.communityId,
        selection.endpointIds,
        selection.eventTypes,
        selection.status,
        selection.responseStatus,
        selection.since,
        selection.until,
        total,
      );
      return toView(row);
    });
  }

  async get(communityId: string, replayId: string): Promise<ReplayView | null> {
    const rows = await this.prisma.$queryRawUnsafe<ReplayRow[]>(
      `SELECT ${VIEW_COLUMNS} FROM webhook_replays WHERE community_id = $1::uuid AND id = $2::uuid`,
      communityId,
      replayId,
    );
    return rows[0] ? toView(rows[0]) : null;
  }

  /** The community's replays, newest first (ties by id), and how many it has. */
  async list(
    communityId: string,
    page: { page: number; limit: number },
  ): Promise<{ items: ReplayView[]; total: number }> {
    const [rows, counted] = await Promise.all([
      this.prisma.$queryRawUnsafe<ReplayRow[]>(
        `SELECT ${VIEW_COLUMNS} FROM webhook_replays WHERE community_id = $1::uuid
          ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
        communityId,
        page.limit,
        (page.page - 1) * page.limit,
      ),
      this.prisma.$queryRaw<{ total: number }[]>`
        SELECT count(*)::int AS total FROM webhook_replays WHERE community_id = ${communityId}::uuid`,
    ]);
    return { items: rows.map(toView), total: counted[0].total };
  }

  /**
   * Cancels a queued or running replay (a finished one is left as it is) and returns it; null: not in this
   * community. Waits for a batch under way on it (the batch holds the row), so no batch starts after this.
   */
  async cancel(communityId: string, replayId: string): Promise<ReplayView | null> {
    await this.prisma.$executeRaw`
      UPDATE webhook_replays SET state = 'cancelled', finished_at = now(), updated_at = now()
       WHERE community_id = ${communityId}::uuid AND id = ${replayId}::uuid AND state IN ('queued', 'running')`;
    return this.get(communityId, replayId);
  }
}
