import { Injectable } from '@nestjs/common';
import { escapeLiteral, type PoolClient, type QueryResult } from 'pg';
import { PrismaService } from '../../prisma/prisma.service';

/** An answer kept under an Idempotency-Key. */
export interface StoredAnswer {
  requestHash: string;
  statusCode: number;
  responseBody: string;
  location: string | null;
}

export interface KeyClaim {
  /** this request holds the key's lock until its transaction ends */
  locked: boolean;
  /** the key's unexpired answer, if one was committed */
  stored: StoredAnswer | undefined;
}

/** Where a handler's statements start: a 4xx answer is kept without them (docs/idempotency.md#what-is-stored). */
const HANDLER_SAVEPOINT = 'idempotent_handler';

/** `id` and the lock key are made here from hashes, so each is written into the statement text as is. */
const HEX = /^[0-9a-f]{64}$/;
const INT64 = /^-?\d{1,19}$/;

/**
 * The one store of `idempotency_keys` (docs/idempotency.md). Its statements run on the request's
 * own connection as simple-protocol scripts, several statements a round trip: the transaction's
 * start, the key's lock and its lookup go in one, the answer and the commit in another, so a write
 * sent with a key costs two round trips more than without (bench/README.md). Every value written
 * into a script is a hex digest, an integer, or text quoted by pg's escapeLiteral.
 */
@Injectable()
export class IdempotencyKeysStore {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Opens the request's transaction on `client`, tries the key's transaction-scoped advisory lock
   * (held until commit or rollback, on whichever instance took it) and reads the key's answer in a
   * statement of its own, so its snapshot is taken after the lock: an answer committed by the
   * lock's previous holder is seen. Leaves a savepoint where the handler's statements begin. The
   * transaction's inserts are counted in their communities' list counters at commit
   * (app.counters_at_commit, prisma/migrations/20261126110000_deferred_row_counters): it stays open
   * until the answer is stored, and a counter row locked since the INSERT would queue every other
   * write of the community behind it.
   */
  async claim(client: PoolClient, id: string, lockKey: string): Promise<KeyClaim> {
    if (!HEX.test(id) || !INT64.test(lockKey)) throw new Error('idempotency key id or lock key malformed');
    const results = (await client.query(
      `BEGIN;
       SET LOCAL app.counters_at_commit = 'on';
       SELECT pg_try_advisory_xact_lock(${lockKey}) AS locked;
       SELECT request_hash, status_code, response_body, location FROM idempotency_keys
        WHERE id = '${id}' AND expires_at > now();
       SAVEPOINT ${HANDLER_SAVEPOINT}`,
    )) as unknown as QueryResult[];
    const locked = (results[2].rows[0] as { locked: boolean }).locked;
    const row = results[3].rows[0] as
      | { request_hash: string; status_code: number; response_body: string; location: string | null }
      | undefined;
    return {
      locked,
      stored: row && {
        requestHash: row.request_hash,
        statusCode: row.status_code,
        responseBody: row.response_body,
        location: row.location,
      },
    };
  }

  /**
   * Stores the answer and commits it with the handler's writes, or, for an error answer
   * (`withoutHandlerWrites`), without them: what the handler wrote before it failed is undone to
   * the savepoint first. An expired answer of the same key (not yet pruned) is replaced.
   */
  async keep(
    client: PoolClient,
    id: string,
    answer: StoredAnswer,
    ttlMs: number,
    withoutHandlerWrites: boolean,
  ): Promise<void> {
    const undo = withoutHandlerWrites ? `ROLLBACK TO SAVEPOINT ${HANDLER_SAVEPOINT};` : '';
    await client.query(
      `${undo}
       INSERT INTO idempotency_keys (id, request_hash, status_code, response_body, location, expires_at)
       VALUES ('${id}', ${escapeLiteral(answer.requestHash)}, ${Math.trunc(answer.statusCode)},
               ${escapeLiteral(answer.responseBody)},
               ${answer.location === null ? 'NULL' : escapeLiteral(answer.location)},
               now() + interval '${Math.trunc(ttlMs)} milliseconds')
       ON CONFLICT (id) DO UPDATE SET request_hash = EXCLUDED.request_hash, status_code = EXCLUDED.status_code,
         response_body = EXCLUDED.response_body, location = EXCLUDED.location, created_at = now(),
         expires_at = EXCLUDED.expires_at
       WHERE idempotency_keys.expires_at <= now();
       COMMIT`,
    );
  }

  /** Ends the request's transaction without keeping anything (the lock goes with it). */
  async abandon(client: PoolClient): Promise<void> {
    await client.query('ROLLBACK');
  }

  /** Deletes up to `limit` expired answers, oldest first, through the expires_at index; returns how many. */
  async pruneExpired(limit: number): Promise<number> {
    const { rowCount } = await this.prisma.pool.query(
      `DELETE FROM idempotency_keys WHERE id IN (
         SELECT id FROM idempotency_keys WHERE expires_at <= now() ORDER BY expires_at LIMIT $1)`,
      [limit],
    );
    return rowCount ?? 0;
  }
}
