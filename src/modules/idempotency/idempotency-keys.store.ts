import { Injectable } from '@nestjs/common';
import { escapeLiteral, type PoolClient } from 'pg';
import type { SealedSecret, StoredSecret } from '../../common/crypto/secret-cipher';
import { PrismaService, type Tx } from '../../prisma/prisma.service';

/** An answer to keep under an Idempotency-Key: its body sealed by the key ring (SealedAnswers). */
export interface AnswerToKeep {
  requestHash: string;
  statusCode: number;
  body: SealedSecret;
  location: string | null;
}

/**
 * A kept answer as read back. Its body is sealed, or, for an answer kept before answers were sealed,
 * in clear (`plainBody`) until secrets:reencrypt seals it.
 */
export interface StoredAnswer {
  requestHash: string;
  statusCode: number;
  body: StoredSecret | null;
  plainBody: string | null;
  location: string | null;
}

/** A kept answer's body, locked for re-encryption. */
export interface LockedBody {
  id: string;
  body: StoredSecret | null;
  plainBody: string | null;
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
 * The one store of `idempotency_keys` and `idempotency_callers` (docs/idempotency.md). Its statements
 * on a keyed request's path run on the request's own connection as simple-protocol scripts, several
 * statements a round trip: the transaction's start and the claim (the key's lock and its lookup) go out
 * with the handler's first statement, the answer and the commit in one more, so a write sent with a key
 * costs one round trip more than without. The lookup and the answer's INSERT are PL/pgSQL functions
 * (prisma/migrations/20261127010000_idempotency_claim_refuses,
 * 20261203010000_idempotency_answers_sealed_and_capped), planned once per connection rather than on
 * every request. Every value written into a script is a hex digest, an integer, base64 in `decode`, or
 * text quoted by pg's escapeLiteral. Answers' bodies are stored sealed, as SealedAnswers seals them.
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
    const { rows } = await this.prisma.pool.query<AnswerRow>(
      `SELECT request_hash, status_code, key_id, iv, ciphertext, auth_tag, response_body, location
         FROM idempotency_keys WHERE id = $1 AND expires_at > now()`,
      [id],
    );
    const row = rows[0];
    return (
      row && {
        requestHash: row.request_hash,
        statusCode: row.status_code,
        body: sealedBody(row),
        plainBody: row.response_body,
        location: row.location,
      }
    );
  }

  /** Gives `client` back to its pool, out of pipeline mode (claim). */
  release(client: PoolClient, err?: Error): void {
    if (!err) (client as unknown as PipelineSwitch).pipeline = false;
    client.release(err);
  }

  /**
   * Stores the answer and commits it with the handler's writes, in one round trip (idempotency_keep,
   * prisma/migrations/20261203010000_idempotency_answers_sealed_and_capped): an expired answer of the same
   * key (not yet pruned) is replaced, the answer is counted to its `caller`, and the caller's answer this
   * one pushes past `cap` (its oldest) is deleted. Returns false, having rolled everything back, when a live answer
   * of the key is already kept: the claim's lock and lookup make that impossible, but a write must not
   * commit beside it if it ever happens.
   */
  async keep(
    client: PoolClient,
    id: string,
    answer: AnswerToKeep,
    keptFor: { caller: string; ttlMs: number; cap: number },
  ): Promise<boolean> {
    if (!HEX.test(id)) throw new Error('idempotency key id malformed');
    const { body } = answer;
    const location = answer.location === null ? 'NULL' : escapeLiteral(answer.location);
    try {
      await client.query(
        `SELECT idempotency_keep('${id}', ${escapeLiteral(answer.requestHash)}, ${Math.trunc(answer.statusCode)},
                                 ${escapeLiteral(body.keyId)}, ${bytea(body.iv)}, ${bytea(body.ciphertext)},
                                 ${bytea(body.authTag)}, ${location}, ${Math.trunc(keptFor.ttlMs)},
                                 ${escapeLiteral(keptFor.caller)}, ${Math.trunc(keptFor.cap)}); COMMIT`,
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

  /**
   * Forgets up to `limit` callers whose last answer was kept more than `ttlMs` ago, so every answer of
   * theirs has expired: their count starts again at their next answer. Returns how many.
   */
  async pruneIdleCallers(ttlMs: number, limit: number): Promise<number> {
    const { rowCount } = await this.prisma.pool.query(
      `DELETE FROM idempotency_callers WHERE caller IN (
         SELECT caller FROM idempotency_callers
          WHERE last_kept_at <= now() - $1 * interval '1 millisecond' LIMIT $2)`,
      [Math.trunc(ttlMs), limit],
    );
    return rowCount ?? 0;
  }

  /** How many kept answers each key sealed; `null`: kept in clear, before answers were sealed. */
  async countByKey(): Promise<Map<string | null, number>> {
    const { rows } = await this.prisma.pool.query<{ key_id: string | null; count: string }>(
      'SELECT key_id, count(*) AS count FROM idempotency_keys GROUP BY key_id',
    );
    return new Map(rows.map((row) => [row.key_id, Number(row.count)]));
  }

  /**
   * In `tx`, locks and reads up to `limit` answers whose body is not sealed under `keyId` (under another
   * key, or in clear), in id order after `after`, so one pass over the primary key finds them all. Rows
   * another transaction holds (an answer being replaced) are skipped rather than waited for.
   */
  async lockNotSealedUnder(tx: Tx, keyId: string, after: string, limit: number): Promise<LockedBody[]> {
    const rows = await tx.$queryRaw<(AnswerRow & { id: string })[]>`
      SELECT id, key_id, iv, ciphertext, auth_tag, response_body FROM idempotency_keys
       WHERE id > ${after} AND key_id IS DISTINCT FROM ${keyId}
       ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED`;
    return rows.map((row) => ({ id: row.id, body: sealedBody(row), plainBody: row.response_body }));
  }

  /** Replaces the answer's body by `body`, the same bytes sealed under another key. */
  async reseal(tx: Tx, id: string, body: SealedSecret): Promise<void> {
    await tx.$executeRaw`
      UPDATE idempotency_keys SET key_id = ${body.keyId}, iv = ${body.iv}, ciphertext = ${body.ciphertext},
             auth_tag = ${body.authTag}, response_body = NULL
       WHERE id = ${id}`;
  }
}

/** A row's columns as the statements above read them. */
interface AnswerRow {
  request_hash: string;
  status_code: number;
  key_id: string | null;
  iv: Uint8Array | null;
  ciphertext: Uint8Array | null;
  auth_tag: Uint8Array | null;
  response_body: string | null;
  location: string | null;
}

function sealedBody(row: Pick<AnswerRow, 'key_id' | 'iv' | 'ciphertext' | 'auth_tag'>): StoredSecret | null {
  if (row.key_id === null || !row.iv || !row.ciphertext || !row.auth_tag) return null;
  return { keyId: row.key_id, iv: row.iv, ciphertext: row.ciphertext, authTag: row.auth_tag };
}

/** Bytes as a bytea expression of the statement text (base64 holds no quote or backslash). */
function bytea(bytes: Uint8Array): string {
  return `decode('${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')}', 'base64')`;
}
