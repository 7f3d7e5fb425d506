import { createHash } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { PoolClient } from 'pg';
import { AnsweredFromStorage, Errors } from '../../common/errors/app-error';
import type { AppRequest } from '../../common/http/request-context';
import { AppConfig } from '../../config/app-config';
import { PrismaService } from '../../prisma/prisma.service';
import { bindConnection, type BoundConnection, unbindConnection } from '../../prisma/request-transaction';
import { IdempotencyKeysStore } from './idempotency-keys.store';

/** The header a caller names a write with, and the one a stored answer comes back with. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** 1 to 255 printable ASCII characters, no space. */
const KEY_FORMAT = /^[!-~]{1,255}$/;
const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Anonymous routes: no identity to scope a key to (docs/idempotency.md#the-rules). */
const UNKEYED_ROUTES = [/^\/api\/auth\//, /^\/api\/webhooks\/portal-sessions$/];

/** A request running in its key's transaction. */
interface KeyedRequest {
  id: string;
  requestHash: string;
  client: PoolClient;
  bound: BoundConnection;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

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
    private readonly config: AppConfig,
  ) {}

  /** Whether `method` on the route `routeUrl` (Fastify's template) takes the header. */
  static keyedRoute(method: string, routeUrl: string | undefined): boolean {
    return (
      MUTATING.has(method) &&
      routeUrl !== undefined &&
      routeUrl.startsWith('/api/') &&
      !UNKEYED_ROUTES.some((route) => route.test(routeUrl))
    );
  }

  /**
   * Called by the last guard. Nothing to do without the header. Otherwise: a malformed key is a
   * 400; a key whose answer is stored is answered from storage (or 422 for another request); a key
   * another request holds is a 409; else the request's transaction is open and its statements
   * bound to it until `finish`.
   */
  async begin(request: AppRequest, reply: FastifyReply): Promise<void> {
    const header = request.headers['idempotency-key'];
    if (header === undefined || !IdempotencyService.keyedRoute(request.method, request.routeOptions.url))
      return;
    if (typeof header !== 'string' || !KEY_FORMAT.test(header))
      throw Errors.badRequest(
        `${IDEMPOTENCY_KEY_HEADER} must be 1 to 255 printable ASCII characters ('!' to '~', no space), sent once`,
        IDEMPOTENCY_KEY_HEADER,
      );
    const actor = request.actor;
    // every keyed route takes credentials; a route that let a caller through without any has no scope
    if (!actor) return;
    const identity = actor.apiKey ? `api-key:${actor.apiKey.id}` : `user:${actor.userId}`;
    const id = sha256(`${identity}\n${request.tenant?.communityId ?? ''}\n${header}`);
    const lockKey = BigInt.asIntN(64, BigInt(`0x${id.slice(0, 16)}`)).toString();
    const requestHash = sha256(`${request.method} ${request.url}\n${request.rawBody ?? ''}`);

    const client = await this.prisma.pool.connect();
    let claim;
    try {
      claim = await this.store.claim(client, id, lockKey);
    } catch (err) {
      client.release(err as Error);
      throw err;
    }
    if (claim.stored || !claim.locked) {
      await this.store.abandon(client).then(
        () => client.release(),
        (err: Error) => client.release(err),
      );
      if (!claim.stored) throw Errors.idempotencyKeyInUse();
      if (claim.stored.requestHash !== requestHash) throw Errors.idempotencyKeyReused();
      const { statusCode, responseBody, location } = claim.stored;
      void reply
        .status(statusCode)
        .header(REPLAYED_HEADER, 'true')
        .header('content-type', 'application/json; charset=utf-8');
      if (location !== null) void reply.header('location', location);
      void reply.send(responseBody);
      throw new AnsweredFromStorage();
    }
    const bound = bindConnection(client);
    if (!bound) {
      await this.store.abandon(client).finally(() => client.release());
      throw new Error('an Idempotency-Key request outside a request scope');
    }
    request.idempotency = { id, requestHash, client, bound } satisfies KeyedRequest;
  }

  /**
   * The reply's onSend hook: keeps the answer with the handler's writes in one commit, or ends the
   * transaction without either when the answer is not kept (a 5xx, a refusal before the handler).
   * A 4xx is kept without the handler's writes. If the commit fails the request answers 500 and
   * nothing of it remains.
   */
  async finish(request: AppRequest, reply: FastifyReply, payload: unknown): Promise<void> {
    const keyed = request.idempotency as KeyedRequest | undefined;
    if (!keyed) return;
    request.idempotency = undefined;
    unbindConnection(keyed.bound);
    const { client } = keyed;
    const status = reply.statusCode;
    let kept = true;
    try {
      if (status >= 500 || request.refusedBeforeHandler) {
        await this.store.abandon(client);
      } else {
        const location = reply.getHeader('location');
        kept = await this.store.keep(
          client,
          keyed.id,
          {
            requestHash: keyed.requestHash,
            statusCode: status,
            responseBody: bodyText(payload),
            location: typeof location === 'string' ? location : null,
          },
          this.config.idempotencyKeyTtlMs,
          status >= 400,
        );
      }
      client.release();
    } catch (err) {
      this.logger.error({ err }, 'could not end an Idempotency-Key transaction');
      client.release(err as Error);
      throw err;
    } finally {
      for (const run of keyed.bound.afterEnd) run();
    }
    // another request's answer was already kept (the claim should have seen it): nothing of this
    // one remains, and the caller's retry is answered from storage
    if (!kept) throw Errors.idempotencyKeyInUse();
  }
}

/** The API answers JSON text (a string, or a Buffer from a route that sends its own). */
function bodyText(payload: unknown): string {
  if (typeof payload === 'string') return payload;
  if (Buffer.isBuffer(payload)) return payload.toString('utf8');
  return '';
}
