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
/** What idempotency_keep raises when a live answer of the key is already kept. */
const UNIQUE_VIOLATION = '23505';

/**
 * The one store of `idempotency_keys` (docs/idempotency.md). Its statements run on the request's
 * own connection as simple-protocol scripts, several statements a round trip: the transaction's
 * start and the claim (the key's lock and its lookup) go in one, the answer and the commit in
 * another, so a write sent with a key costs two round trips more than without. The lookup and the
 * answer's INSERT are PL/pgSQL functions (prisma/migrations/20261126210000_idempotency_functions),
 * planned once per connection rather than on every request. Every value written into a script is
 * a hex digest, an integer, or text quoted by pg's escapeLiteral.
 */
@Injectable()
export class IdempotencyKeysStore {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Opens the request's transaction on `client`, tries the key's transaction-scoped advisory lock
   * (held until commit or rollback, on whichever instance took it) and reads the key's answer, after
   * the lock, so an answer committed by the lock's previous holder is seen (idempotency_claim).
   * Leaves a savepoint where the handler's statements begin. The claim also has the transaction's
   * inserts counted in their communities' list counters at commit: it stays open until the answer
   * is stored, and a counter row locked since the INSERT would queue every other write of the
   * community behind it.
   */
  async claim(client: PoolClient, id: string, lockKey: string): Promise<KeyClaim> {
    if (!HEX.test(id) || !INT64.test(lockKey)) throw new Error('idempotency key id or lock key malformed');
    const results = (await client.query(
      `BEGIN;
       SELECT * FROM idempotency_claim('${id}', ${lockKey});
       SAVEPOINT ${HANDLER_SAVEPOINT}`,
    )) as unknown as QueryResult[];
    const row = results[1].rows[0] as {
      locked: boolean;
      stored_request_hash: string | null;
      stored_status_code: number | null;
      stored_response_body: string | null;
      stored_location: string | null;
    };
    return {
      locked: row.locked,
      stored:
        row.stored_request_hash === null
          ? undefined
          : {
              requestHash: row.stored_request_hash,
              statusCode: row.stored_status_code as number,
              responseBody: row.stored_response_body as string,
              location: row.stored_location,
            },
    };
  }

  /**
   * Stores the answer and commits it with the handler's writes, or, for an error answer
   * (`withoutHandlerWrites`), without them: what the handler wrote before it failed is undone to
   * the savepoint first. An expired answer of the same key (not yet pruned) is replaced. Returns
   * false, having rolled everything back, when a live answer of the key is already kept: the
   * claim's lock and lookup make that impossible, and a write must not commit beside it if it happens.
   */
  async keep(
    client: PoolClient,
    id: string,
    answer: StoredAnswer,
    ttlMs: number,
    withoutHandlerWrites: boolean,
  ): Promise<boolean> {
    if (!HEX.test(id)) throw new Error('idempotency key id malformed');
    const undo = withoutHandlerWrites ? `ROLLBACK TO SAVEPOINT ${HANDLER_SAVEPOINT};` : '';
    const location = answer.location === null ? 'NULL' : escapeLiteral(answer.location);
    try {
      await client.query(
        `${undo}
         SELECT idempotency_keep('${id}', ${escapeLiteral(answer.requestHash)}, ${Math.trunc(answer.statusCode)},
                                 ${escapeLiteral(answer.responseBody)}, ${location}, ${Math.trunc(ttlMs)});
         COMMIT`,
      );
      return true;
    } catch (err) {
      if ((err as { code?: string }).code !== UNIQUE_VIOLATION) throw err;
      await client.query('ROLLBACK');
      return false;
    }
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
