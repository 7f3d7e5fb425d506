import { Injectable } from '@nestjs/common';
import { escapeLiteral, type PoolClient } from 'pg';
import { PrismaService } from '../../prisma/prisma.service';

/** An answer kept under an Idempotency-Key. */
export interface StoredAnswer {
  requestHash: string;
  statusCode: number;
  responseBody: string;
  location: string | null;
}

/** What the claim of a key found: the request may run, or the key is another's. */
export type ClaimOutcome = 'claimed' | 'in-use' | 'answered';

/** The SQLSTATEs idempotency_claim raises (prisma/migrations/20261127010000_idempotency_claim_refuses). */
const CLAIM_REFUSALS: Record<string, ClaimOutcome> = { IK409: 'in-use', IK200: 'answered' };

/**
 * pg's pipeline mode, set on one client rather than its whole pool: a client in it sends each query at
 * once instead of after the previous one's answer. pg reads the flag at every send, so it may change
 * while the client is idle (no query sent and unanswered), which is when claim and release change it.
 */
type PipelineSwitch = {
  pipeline: boolean;
  connection: { stream: NodeJS.WritableStream & { cork(): void; uncork(): void } };
};

/** `id` and the lock key are made here from hashes, so each is written into the statement text as is. */
const HEX = /^[0-9a-f]{64}$/;
const INT64 = /^-?\d{1,19}$/;
/** What idempotency_keep raises when a live answer of the key is already kept. */
const UNIQUE_VIOLATION = '23505';

/**
 * The one store of `idempotency_keys` (docs/idempotency.md). Its statements run on the request's
 * own connection as simple-protocol scripts, several statements a round trip: the transaction's
 * start and the claim (the key's lock and its lookup) go out with the handler's first statement, the
 * answer and the commit in one more, so a write sent with a key costs one round trip more than
 * without. The lookup and the answer's INSERT are PL/pgSQL functions
 * (prisma/migrations/20261126210000_idempotency_functions, 20261127010000_idempotency_claim_refuses),
 * planned once per connection rather than on every request. Every value written into a script is a
 * hex digest, an integer, or text quoted by pg's escapeLiteral.
 */
@Injectable()
export class IdempotencyKeysStore {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Opens the request's transaction on `client`, tries the key's transaction-scoped advisory lock
   * (held until commit or rollback, on whichever instance took it) and looks the key's answer up, after
   * the lock, so an answer committed by the lock's previous holder is seen (idempotency_claim). Has the
   * transaction's inserts counted in their communities' list counters at commit: it stays open until the answer is stored, and a counter row
   * locked since the INSERT would queue every other write of the community behind it.
   *
   * Does not wait for the answer: the client is put in pg's pipeline mode and its socket corked until
   * the next turn of the event loop, so the handler's first statement, sent meanwhile, goes out behind
   * the claim in one write and one round trip. When the key is taken the claim raises and aborts the
   * transaction, so every statement behind it fails without running; the caller rolls back and, for
   * 'answered', reads the answer with `answer`. `onRefused` runs as soon as the claim's answer is read,
   * before the answers of the statements behind it: a handler whose statements fail because the key
   * was taken can then be told from a fault.
   */
  claim(client: PoolClient, id: string, lockKey: string, onRefused: () => void): Promise<ClaimOutcome> {
    if (!HEX.test(id) || !INT64.test(lockKey)) throw new Error('idempotency key id or lock key malformed');
    const pipelined = client as unknown as PipelineSwitch;
    pipelined.pipeline = true;
    const { stream } = pipelined.connection;
    stream.cork();
    setImmediate(() => stream.uncork());
    return new Promise<ClaimOutcome>((resolve, reject) => {
      // pg's callback form: it runs while pg reads the claim's answer, before the answers behind it
      void client.query(`BEGIN; SELECT idempotency_claim('${id}', ${lockKey})`, (err: Error | undefined) => {
        if (!err) return resolve('claimed');
        const refusal = CLAIM_REFUSALS[(err as { code?: string }).code ?? ''];
        if (!refusal) return reject(err);
        onRefused();
        resolve(refusal);
      });
    });
  }

  /** The key's unexpired answer, read after a claim answered 'answered' was rolled back. */
  async answer(id: string): Promise<StoredAnswer | undefined> {
    const { rows } = await this.prisma.pool.query<StoredAnswer>(
      `SELECT request_hash AS "requestHash", status_code AS "statusCode", response_body AS "responseBody", location
         FROM idempotency_keys WHERE id = $1 AND expires_at > now()`,
      [id],
    );
    return rows[0];
  }

  /** Gives `client` back to its pool, out of pipeline mode (claim). */
  release(client: PoolClient, err?: Error): void {
    if (!err) (client as unknown as PipelineSwitch).pipeline = false;
    client.release(err);
  }

  /**
   * Stores the answer and commits it with the handler's writes, or, for an error answer
   * (`withoutHandlerWrites`), without them: what the handler wrote before it failed is rolled back
   * with the whole transaction, and the answer kept in a transaction of its own, sent in the same
   * round trip. (A savepoint at the handler's start would keep the lock across, but it made every
   * keyed write a subtransaction, which cost PostgreSQL more than the rare error answer gains; in the
   * moment between the two, another request of the key may claim it, and then one of the two answers
   * is kept and the other request answers 409.) An expired answer of the same key (not yet pruned) is
   * replaced. Returns false, having rolled everything back, when a live answer of the key is already
   * kept: the claim's lock and lookup make that impossible but for that moment, and a write must not
   * commit beside it if it happens.
   */
  async keep(
    client: PoolClient,
    id: string,
    answer: StoredAnswer,
    ttlMs: number,
    withoutHandlerWrites: boolean,
  ): Promise<boolean> {
    if (!HEX.test(id)) throw new Error('idempotency key id malformed');
    const [before, after] = withoutHandlerWrites ? ['ROLLBACK;', ''] : ['', '; COMMIT'];
    const location = answer.location === null ? 'NULL' : escapeLiteral(answer.location);
    try {
      await client.query(
        `${before}
         SELECT idempotency_keep('${id}', ${escapeLiteral(answer.requestHash)}, ${Math.trunc(answer.statusCode)},
                                 ${escapeLiteral(answer.responseBody)}, ${location}, ${Math.trunc(ttlMs)})${after}`,
      );
      return true;
    } catch (err) {
      if ((err as { code?: string }).code !== UNIQUE_VIOLATION) throw err;
      // (an answer kept on its own was in an implicit transaction, already ended)
      if (!withoutHandlerWrites) await client.query('ROLLBACK');
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
