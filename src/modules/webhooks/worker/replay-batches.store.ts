import { Injectable } from '@nestjs/common';
import { Prisma } from '../../../generated/prisma/client';
import { PrismaService } from '../../../prisma/prisma.service';
import type { EventBody } from '../../events/event-body';
import type { DeliveryJobData } from '../core/delivery-job';
import { type ReplayStatus, selectedAttempts } from '../core/replays/replay-selection';

/** What one batch did: the replay it took, the attempts it queued (as jobs), whether it finished the replay. */
export interface ReplayBatch {
  replayId: string;
  jobs: DeliveryJobData[];
  skipped: number;
  done: boolean;
  /** the batch queued nothing: the replay already has `maxPending` attempts waiting to be sent */
  heldBack: boolean;
}

interface ClaimedReplay {
  id: string;
  community_id: string;
  endpoint_ids: string[];
  event_types: string[] | null;
  status_filter: ReplayStatus;
  response_status: string[] | null;
  since: Date;
  until: Date;
  cursor_created_at: Date;
  cursor_outbox_id: bigint;
  cursor_endpoint_id: string;
}

interface BatchRow {
  created_at: Date;
  outbox_id: bigint;
  endpoint_id: string;
  message_id: string;
  event_type: string;
  payload: EventBody;
  /** the attempt number written, null when nothing was (the endpoint paused or disabled, or a newer attempt exists) */
  queued_attempt: number | null;
}

/**
 * The workers' side of `webhook_replays` (the API's is replays/webhook-replays.store.ts): one batch of one
 * replay per transaction. The replay's row is claimed FOR UPDATE SKIP LOCKED and held until the commit, so two
 * workers never take the same replay at once; the batch's attempts, its counters and its cursor commit
 * together, so a worker killed mid-batch leaves the replay exactly where the last committed batch left it;
 * and the unique key (replay_id, endpoint_id, message_id) refuses a second attempt of a message by one replay
 * whatever happens. Attempts are written PENDING and due now, like a resend's: a lost enqueue is the sweep's.
 */
@Injectable()
export class ReplayBatchesStore {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Takes the next batch (up to `limit` selected attempts, in the order of the events' raise time, outbox id,
   * endpoint id) of the unfinished replay worked on least recently; null when no replay is unfinished or free.
   */
  async takeBatch(limit: number, maxPending: number): Promise<ReplayBatch | null> {
    return this.prisma.$transaction(async (tx) => {
      const [replay] = await tx.$queryRaw<ClaimedReplay[]>`
        SELECT id, community_id, endpoint_ids::text[] AS endpoint_ids, event_types, status_filter, response_status,
               since, until, cursor_created_at, cursor_outbox_id, cursor_endpoint_id::text AS cursor_endpoint_id
          FROM webhook_replays
         WHERE state IN ('queued', 'running')
         ORDER BY updated_at, id
         LIMIT 1
           FOR UPDATE SKIP LOCKED`;
      if (!replay) return null;
      // the replay's attempts still waiting: past the cap it waits for the endpoints to take them
      const [{ pending }] = await tx.$queryRaw<{ pending: number }[]>`
        SELECT count(*)::int AS pending FROM (
          SELECT 1 FROM webhook_deliveries
           WHERE replay_id = ${replay.id}::uuid AND status = 'PENDING' LIMIT ${maxPending}) waiting`;
      if (pending >= maxPending) {
        // worked on now: the next take turns to another replay first
        await tx.$executeRaw`UPDATE webhook_replays SET updated_at = now() WHERE id = ${replay.id}::uuid`;
        return { replayId: replay.id, jobs: [], skipped: 0, done: false, heldBack: true };
      }
      const selection = {
        communityId: replay.community_id,
        endpointIds: replay.endpoint_ids,
        since: replay.since,
        until: replay.until,
        eventTypes: replay.event_types,
        status: replay.status_filter,
        responseStatus: replay.response_status,
      };
      const rows = await tx.$queryRaw<BatchRow[]>`
        WITH page AS (
          SELECT o.created_at, o.id AS outbox_id, o.message_id, o.event_type, o.payload, d.endpoint_id, d.attempt,
                 d.request_id, d.traceparent, d.subject,
                 (SELECT e.is_active AND e.disabled_at IS NULL FROM webhook_endpoints e
                   WHERE e.community_id = d.community_id AND e.id = d.endpoint_id) AS takes
          ${selectedAttempts(selection)}
            AND o.created_at >= ${replay.cursor_created_at}
            AND (o.created_at, o.id, d.endpoint_id)
                > (${replay.cursor_created_at}, ${replay.cursor_outbox_id}, ${replay.cursor_endpoint_id}::uuid)
          ORDER BY o.created_at, o.id, d.endpoint_id
          LIMIT ${limit}
        ), inserted AS (
          INSERT INTO webhook_deliveries
            (id, community_id, endpoint_id, message_id, event_type, attempt, status, next_attempt_at, updated_at,
             request_id, traceparent, subject, trigger, replay_id)
          SELECT gen_random_uuid(), ${replay.community_id}::uuid, p.endpoint_id, p.message_id, p.event_type,
                 p.attempt + 1, 'PENDING', now(), now(), p.request_id, p.traceparent, p.subject, 'replay',
                 ${replay.id}::uuid
            FROM page p WHERE p.takes
          -- either key: a newer attempt written meanwhile (message, endpoint, attempt), or this replay's own
          ON CONFLICT DO NOTHING
          RETURNING endpoint_id, message_id, attempt
        )
        SELECT p.created_at, p.outbox_id, p.endpoint_id::text AS endpoint_id, p.message_id, p.event_type, p.payload,
               i.attempt AS queued_attempt
          FROM page p
          LEFT JOIN inserted i ON i.endpoint_id = p.endpoint_id AND i.message_id = p.message_id
         ORDER BY p.created_at, p.outbox_id, p.endpoint_id`;
      const jobs: DeliveryJobData[] = rows
        .filter((r) => r.queued_attempt !== null)
        .map((r) => ({
          communityId: replay.community_id,
          endpointId: r.endpoint_id,
          messageId: r.message_id,
          eventType: r.event_type,
          attempt: r.queued_attempt!,
          outboxId: String(r.outbox_id),
          payload: r.payload,
        }));
      const skipped = rows.length - jobs.length;
      const done = rows.length < limit;
      const last = rows.at(-1);
      const cursor = last
        ? Prisma.sql`cursor_created_at = ${last.created_at}, cursor_outbox_id = ${last.outbox_id},
                     cursor_endpoint_id = ${last.endpoint_id}::uuid,`
        : Prisma.empty;
      await tx.$executeRaw`
        UPDATE webhook_replays
           SET ${cursor} queued = queued + ${jobs.length}::int, skipped = skipped + ${skipped}::int,
               ${done ? Prisma.sql`state = 'done', finished_at = now(),` : Prisma.sql`state = 'running',`}
               updated_at = now()
         WHERE id = ${replay.id}::uuid`;
      return { replayId: replay.id, jobs, skipped, done, heldBack: false };
    });
  }

  /** Replays a worker is taking batches of, for the gauge. */
  async countRunning(): Promise<number> {
    const [{ running }] = await this.prisma.$queryRaw<{ running: number }[]>`
      SELECT count(*)::int AS running FROM webhook_replays WHERE state = 'running'`;
    return running;
  }
}
