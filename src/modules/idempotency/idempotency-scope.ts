import { createHash } from 'node:crypto';
import { Errors } from '../../common/errors/app-error';
import type { Actor } from '../../common/http/request-context';

/** The header a caller names a write with, and the one a stored answer comes back with. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** 1 to 255 printable ASCII characters, no space. */
const KEY_FORMAT = /^[!-~]{1,255}$/;
const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Anonymous routes: no identity to scope a key to (docs/idempotency.md#the-rules). */
const UNKEYED_ROUTES = [/^\/api\/auth\//, /^\/api\/webhooks\/portal-sessions$/];

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Whether `method` on the route `routeUrl` (Fastify's template) takes the header. */
export function isKeyedRoute(method: string, routeUrl: string | undefined): boolean {
  return (
    MUTATING.has(method) &&
    routeUrl !== undefined &&
    routeUrl.startsWith('/api/') &&
    !UNKEYED_ROUTES.some((route) => route.test(routeUrl))
  );
}

/** The header's value as a key; 400 unless it is sent once and well formed. */
export function checkedKey(header: string | string[]): string {
  if (typeof header !== 'string' || !KEY_FORMAT.test(header))
    throw Errors.badRequest(
      `${IDEMPOTENCY_KEY_HEADER} must be 1 to 255 printable ASCII characters ('!' to '~', no space), sent once`,
      IDEMPOTENCY_KEY_HEADER,
    );
  return header;
}

/**
 * Whose key it is (docs/idempotency.md#the-rules): one key names one write of one identity (the API
 * key, else the user) in one community, so the same key sent by another identity or in another
 * community is another key. `id` is the stored key, `lockKey` its advisory lock (the id's first 64
 * bits, signed as PostgreSQL's bigint), `caller` what IDEMPOTENCY_KEYS_PER_CALLER counts by.
 */
export function keyScope(
  actor: Pick<Actor, 'userId' | 'apiKey'>,
  communityId: string | undefined,
  key: string,
): { id: string; lockKey: string; caller: string } {
  const identity = actor.apiKey ? `api-key:${actor.apiKey.id}` : `user:${actor.userId}`;
  const community = communityId ?? '';
  const id = sha256(`${identity}\n${community}\n${key}`);
  const lockKey = BigInt.asIntN(64, BigInt(`0x${id.slice(0, 16)}`)).toString();
  return { id, lockKey, caller: `${identity}@${community}` };
}

/**
 * What makes a retry the same request: its method, its URL with the query string, and its body's
 * bytes. A key's answer is replayed only to a request of the same fingerprint (else 422).
 */
export function requestFingerprint(method: string, url: string, rawBody: string | undefined): string {
  return sha256(`${method} ${url}\n${rawBody ?? ''}`);
}
