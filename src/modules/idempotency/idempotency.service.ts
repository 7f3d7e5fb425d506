import { Injectable, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { PoolClient } from 'pg';
import { Errors } from '../../common/errors/app-error';
import type { AppRequest } from '../../common/http/request-context';
import { AppConfig } from '../../config/app-config';
import { setResponseErrorCode } from '../../logging/error-code';
import { PrismaService } from '../../prisma/prisma.service';
import { bindConnection, type BoundConnection, unbindConnection } from '../../prisma/request-transaction';
import { type ClaimOutcome, IdempotencyKeysStore } from './idempotency-keys.store';
import { checkedKey, isKeyedRoute, keyScope, REPLAYED_HEADER, requestFingerprint } from './idempotency-scope';
import { SealedAnswers } from './sealed-answers';

export { IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER } from './idempotency-scope';

/** A request running in its key's transaction. */
interface KeyedRequest {
  id: string;
  /** whose key it is: the identity and the community, which IDEMPOTENCY_KEYS_PER_CALLER counts by */
  caller: string;
  requestHash: string;
  client: PoolClient;
  bound: BoundConnection;
  /** what the claim found; the handler runs meanwhile, its statements behind the claim */
  claim: Promise<ClaimOutcome>;
}

/**
 * Idempotent writes (docs/idempotency.md): a write sent with an Idempotency-Key runs in one
 * transaction on one connection, its statements bound to it (src/prisma/request-transaction.ts),
 * and its answer is stored in that transaction when it commits (`finish`, from the reply's onSend
 * hook, so the answer is exactly the bytes sent). The key's advisory lock, taken in that
 * transaction, tells any instance that the first request still runs; a crash before the commit
 * leaves neither the write nor the answer, after it both.
 */
@Injectable()
export class IdempotencyService {
  private readonly logger = new Logger(IdempotencyService.name);

  constructor(
    private readonly prisma: PrismaService,
    private readonly store: IdempotencyKeysStore,
    private readonly answers: SealedAnswers,
    private readonly config: AppConfig,
  ) {}

  /** Whether `method` on the route `routeUrl` (Fastify's template) takes the header. */
  static keyedRoute(method: string, routeUrl: string | undefined): boolean {
    return isKeyedRoute(method, routeUrl);
  }

  /**
   * Called by the last guard. Nothing to do without the header; a malformed key is a 400. Otherwise
   * the request's transaction is opened and the key claimed in it, and its statements are bound to
   * it until `finish`. The claim is not awaited: the handler runs at once and its statements follow
   * the claim on the connection, in the same round trip (IdempotencyKeysStore.claim). If the key
   * turns out to be another's, those statements fail without running, and `finish` answers for the key.
   */
  async begin(request: AppRequest): Promise<void> {
    const header = request.headers['idempotency-key'];
    if (header === undefined || !IdempotencyService.keyedRoute(request.method, request.routeOptions.url))
      return;
    const key = checkedKey(header);
    const actor = request.actor;
    // every keyed route takes credentials; a route that let a caller through without any has no scope
    if (!actor) return;
    const { id, lockKey, caller } = keyScope(actor, request.tenant?.communityId, key);
    const requestHash = requestFingerprint(request.method, request.url, request.rawBody);

    const client = await this.prisma.pool.connect();
    const bound = bindConnection(client);
    if (!bound) {
      client.release();
      throw new Error('an Idempotency-Key request outside a request scope');
    }
    const claim = this.store.claim(client, id, lockKey, () => (request.handlerOverruled = true));
    // awaited by finish; a failed claim fails the handler's statements too, and finish reports it
    claim.catch(() => undefined);
    request.idempotency = { id, caller, requestHash, client, bound, claim } satisfies KeyedRequest;
  }

  /**
   * The reply's onSend hook; returns the payload to send. When the claim found the key another's,
   * the transaction is rolled back and the answer is the key's: its kept answer replayed, or 422 for
   * another request, or 409 while it runs. Otherwise a 2xx is kept, sealed, with the handler's writes
   * in one commit; any other answer (a 4xx or a 5xx, which write nothing) ends the transaction without
   * either, so a retry runs again (docs/idempotency.md#what-is-stored). If the commit fails the request
   * answers 500 and nothing of it remains.
   */
  async finish(request: AppRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
    const keyed = request.idempotency as KeyedRequest | undefined;
    if (!keyed) return payload;
    request.idempotency = undefined;
    unbindConnection(keyed.bound);
    const { client } = keyed;
    const status = reply.statusCode;
    let outcome: ClaimOutcome;
    let kept = false;
    try {
      outcome = await keyed.claim;
      if (outcome !== 'claimed' || status < 200 || status >= 300) {
        await this.store.abandon(client);
      } else {
        const location = reply.getHeader('location');
        kept = await this.store.keep(
          client,
          keyed.id,
          {
            requestHash: keyed.requestHash,
            statusCode: status,
            body: this.answers.seal(bodyText(payload)),
            location: typeof location === 'string' ? location : null,
          },
          {
            caller: keyed.caller,
            ttlMs: this.config.idempotencyKeyTtlMs,
            cap: this.config.IDEMPOTENCY_KEYS_PER_CALLER,
          },
        );
        // a live answer of the key was kept meanwhile: this run is rolled back and answers 409 below
        if (!kept) outcome = 'in-use';
      }
      this.store.release(client);
    } catch (err) {
      this.logger.error({ err }, 'could not end an Idempotency-Key transaction');
      this.store.release(client, err as Error);
      throw err;
    }
    if (outcome === 'claimed') {
      // effects outside PostgreSQL (cache invalidations, queued jobs) follow a commit of the handler's
      // writes only: an answer not kept rolled them back
      if (kept) for (const run of keyed.bound.afterCommit) run();
      return payload;
    }
    // what the handler answered is not the key's answer
    void reply.removeHeader('location');
    // the key's first request still runs, or (rarer) kept its answer between this one's claim and
    // commit: nothing of this one remains, and the caller's retry gets the key's answer
    if (outcome !== 'answered') throw Errors.idempotencyKeyInUse();
    const stored = await this.store.answer(keyed.id);
    // expired since the claim: the caller's retry runs anew
    if (!stored) throw Errors.idempotencyKeyInUse();
    if (stored.requestHash !== keyed.requestHash) throw Errors.idempotencyKeyReused();
    setResponseErrorCode(reply.raw, undefined);
    void reply
      .status(stored.statusCode)
      .header(REPLAYED_HEADER, 'true')
      .header('content-type', 'application/json; charset=utf-8');
    if (stored.location !== null) void reply.header('location', stored.location);
    return this.answers.open(stored);
  }
}

/** The API answers JSON text (a string, or a Buffer from a route that sends its own). */
function bodyText(payload: unknown): string {
  if (typeof payload === 'string') return payload;
  if (Buffer.isBuffer(payload)) return payload.toString('utf8');
  return '';
}
