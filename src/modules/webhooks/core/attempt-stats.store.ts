import { Injectable } from '@nestjs/common';
import { PrismaService } from '../../../prisma/prisma.service';

/** One endpoint's hour: the attempts whose outcome was recorded in it, and their latencies per bin. */
export interface AttemptStatsBucket {
  start: Date;
  attempts: number;
  succeeded: number;
  failed: number;
  /** counts per latency bin (see AttemptStatsHours.bounds) */
  latencyCounts: number[];
}

/** An endpoint's recent hours as stored (absent hours had no attempt). */
export interface AttemptStatsHours {
  /** the start of the current UTC hour, by the database's clock */
  currentHour: Date;
  /** the latency bins' lower bounds in ms after the first bin, which starts at 0 (webhook_latency_bounds) */
  bounds: number[];
  buckets: AttemptStatsBucket[];
}

/**
 * The one owner of `webhook_attempt_stats`, the endpoints' hourly figures. Its rows are written by
 * the SQL function webhook_count_attempts (in the migrations), which the statements that record an
 * attempt's outcome call inside themselves (the worker's finish, the FIFO claim, the test route's
 * finish), so the figures commit with the outcomes in the same round trip. Here: the reads, which cost
 * at most one row per endpoint and hour whatever the delivery log's size and, as reads that tolerate
 * lag, go to DATABASE_READ_URL when it is set (docs/architecture.md#read-replicas); and the pruner's delete.
 */
@Injectable()
export class AttemptStatsStore {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * The endpoint's buckets of the current hour and the `hours` - 1 before it, oldest first; null when
   * the community has no such endpoint (told apart from an endpoint without attempts in one statement).
   */
  async endpointHours(
    communityId: string,
    endpointId: string,
    hours: number,
  ): Promise<AttemptStatsHours | null> {
    const { rows } = await this.prisma.lagTolerantQuery<{
      current_hour: Date;
      bounds: number[];
      found: boolean;
      bucket_start: Date | null;
      attempts: number | null;
      succeeded: number | null;
      failed: number | null;
      latency_counts: number[] | null;
    }>(
      'endpoint_hours',
      `SELECT date_trunc('hour', now(), 'UTC') AS current_hour, webhook_latency_bounds() AS bounds,
              EXISTS (SELECT 1 FROM webhook_endpoints WHERE community_id = $1::uuid AND id = $2::uuid) AS found,
              s.bucket_start, s.attempts, s.succeeded, s.failed, s.latency_counts
       FROM (SELECT 1) one
       LEFT JOIN webhook_attempt_stats s
         ON s.community_id = $1::uuid AND s.endpoint_id = $2::uuid
        AND s.bucket_start > date_trunc('hour', now(), 'UTC') - $3::int * interval '1 hour'
       ORDER BY s.bucket_start`,
      [communityId, endpointId, hours],
    );
    const first = rows[0];
    if (!first.found) return null;
    return {
      currentHour: first.current_hour,
      bounds: first.bounds,
      buckets: rows
        .filter((r) => r.bucket_start !== null)
        .map((r) => ({
          start: r.bucket_start!,
          attempts: r.attempts!,
          succeeded: r.succeeded!,
          failed: r.failed!,
          latencyCounts: r.latency_counts!,
        })),
    };
  }

  /**
   * Per endpoint of the community, the attempts of the current hour and the `hours` - 1 before it and
   * how many succeeded (endpoints without any are absent).
   */
  async recentOutcomes(
    communityId: string,
    hours: number,
  ): Promise<Map<string, { attempts: number; succeeded: number }>> {
    const { rows } = await this.prisma.lagTolerantQuery<{
      endpoint_id: string;
      attempts: number;
      succeeded: number;
    }>(
      'endpoint_recent_outcomes',
      `SELECT endpoint_id, sum(attempts)::int AS attempts, sum(succeeded)::int AS succeeded
       FROM webhook_attempt_stats
       WHERE community_id = $1::uuid
         AND bucket_start > date_trunc('hour', now(), 'UTC') - $2::int * interval '1 hour'
       GROUP BY endpoint_id`,
      [communityId, hours],
    );
    return new Map(rows.map((r) => [r.endpoint_id, { attempts: r.attempts, succeeded: r.succeeded }]));
  }

  /** Deletes up to `limit` buckets that started more than `ageMs` ago (oldest first); returns how many. */
  async pruneOlderThan(ageMs: number, limit: number): Promise<number> {
    return this.prisma.$executeRaw`
      WITH old AS (
        SELECT community_id, endpoint_id, bucket_start FROM webhook_attempt_stats
        WHERE bucket_start < now() - ${ageMs} * interval '1 millisecond'
        ORDER BY bucket_start LIMIT ${limit}
      )
      DELETE FROM webhook_attempt_stats s USING old
      WHERE s.community_id = old.community_id AND s.endpoint_id = old.endpoint_id
        AND s.bucket_start = old.bucket_start`;
  }
}
