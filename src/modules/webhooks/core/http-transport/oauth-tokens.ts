import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../../../../redis/redis-client';
import type { SecretKeyRing } from '../../../../common/crypto/secret-cipher';
import type { OAuthClient } from './endpoint-auth';
import { openText, type SealedText, sealText } from './sealed-text';

/** A token is renewed this long before the token endpoint said it expires (docs/api.md#oauth-20-client-credentials). */
export const TOKEN_EXPIRY_MARGIN_MS = 30_000;
/** How long a token whose answer gave no expires_in is kept (a 401 renews it sooner). */
export const TOKEN_DEFAULT_LIFETIME_MS = 5 * 60_000;
/** How often a worker waiting for another's token request looks whether it is there. */
const WAIT_STEP_MS = 20;

/** A token as the token endpoint gave it: `lifetimeMs` null when its answer gave no expires_in. */
export interface IssuedToken {
  token: string;
  lifetimeMs: number | null;
}

/** Asks the token endpoint (through the platform's transport); throws TokenRequestError. */
export type TokenRequest = (client: OAuthClient, timeoutMs: number) => Promise<IssuedToken>;

/** The token request failed; the message gives the token endpoint's status or what failed, never the secret. */
export class TokenRequestError extends Error {}

/** Deletes the key only while it still holds the value read (another worker may have renewed it since). */
const DELETE_IF_SAME = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`;

interface Held {
  token: string;
  until: number;
}

/**
 * OAuth 2.0 client-credentials tokens of endpoints, kept for every worker in Redis (sealed by the key
 * ring) until TOKEN_EXPIRY_MARGIN_MS before they expire, and in each process's memory as long: a
 * delivery asks the token endpoint only when no live token exists anywhere. One worker at a time asks
 * for an endpoint (a short Redis lock); the others wait for its answer. After a 401 from the receiver,
 * `renew` drops the rejected token, unless another delivery has renewed it already, and gets one new
 * one. Redis unreachable: each process asks the token endpoint itself, so deliveries go on.
 */
export class OAuthTokens {
  private readonly held = new Map<string, Held>();
  private readonly asking = new Map<string, Promise<string>>();

  constructor(
    private readonly redis: () => RedisClient,
    private readonly ring: SecretKeyRing,
    private readonly request: TokenRequest,
    private readonly now: () => number = Date.now,
  ) {}

  /** A live token for `key` (the endpoint and the version of its settings). */
  token(key: string, client: OAuthClient, timeoutMs: number): Promise<string> {
    const held = this.held.get(key);
    if (held && held.until > this.now()) return Promise.resolve(held.token);
    return this.once(key, () => this.obtain(key, client, timeoutMs, null));
  }

  /** A token other than `rejected`, which the receiver answered 401 to. */
  renew(key: string, client: OAuthClient, rejected: string, timeoutMs: number): Promise<string> {
    const held = this.held.get(key);
    if (held && held.token !== rejected && held.until > this.now()) return Promise.resolve(held.token);
    if (held?.token === rejected) this.held.delete(key);
    return this.once(key, () => this.obtain(key, client, timeoutMs, rejected));
  }

  /** One question per key at a time in this process. */
  private once(key: string, ask: () => Promise<string>): Promise<string> {
    const running = this.asking.get(key);
    if (running) return running;
    const asked = ask().finally(() => this.asking.delete(key));
    this.asking.set(key, asked);
    return asked;
  }

  private async obtain(key: string, client: OAuthClient, timeoutMs: number, rejected: string | null) {
    const tokenKey = `oauth-token:${key}`;
    const lockKey = `oauth-token-lock:${key}`;
    const deadline = this.now() + timeoutMs;
    let redis: RedisClient;
    try {
      redis = this.redis();
      for (;;) {
        const stored = await redis.get(tokenKey);
        const found = stored === null ? null : this.open(stored);
        if (found && found.token !== rejected && found.until > this.now()) {
          this.held.set(key, found);
          return found.token;
        }
        if (stored !== null && found?.token === rejected)
          await redis.eval(DELETE_IF_SAME, 1, tokenKey, stored);
        const nonce = randomUUID();
        if ((await redis.set(lockKey, nonce, 'PX', timeoutMs + 1_000, 'NX')) === 'OK') {
          try {
            return await this.ask(key, client, timeoutMs, tokenKey);
          } finally {
            await redis.eval(DELETE_IF_SAME, 1, lockKey, nonce).catch(() => undefined);
          }
        }
        // another worker is asking: its token lands in Redis, or its lock goes and this one asks
        if (this.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
      }
    } catch (err) {
      if (err instanceof TokenRequestError) throw err;
      // Redis failed: go on without the shared copy
    }
    return this.ask(key, client, timeoutMs, null);
  }

  /** Asks the token endpoint and keeps the answer (in Redis too, unless `tokenKey` is null). */
  private async ask(
    key: string,
    client: OAuthClient,
    timeoutMs: number,
    tokenKey: string | null,
  ): Promise<string> {
    const issued = await this.request(client, timeoutMs);
    const keepMs =
      (issued.lifetimeMs ?? TOKEN_DEFAULT_LIFETIME_MS + TOKEN_EXPIRY_MARGIN_MS) - TOKEN_EXPIRY_MARGIN_MS;
    if (keepMs <= 0) return issued.token;
    const held = { token: issued.token, until: this.now() + keepMs };
    this.held.set(key, held);
    if (tokenKey !== null)
      await this.redis()
        .set(tokenKey, JSON.stringify(sealText(this.ring, JSON.stringify(held))), 'PX', keepMs)
        .catch(() => undefined);
    return issued.token;
  }

  private open(stored: string): Held | null {
    try {
      return JSON.parse(openText(this.ring, JSON.parse(stored) as SealedText)) as Held;
    } catch {
      // sealed under a key that left the ring, or not ours: as if absent
      return null;
    }
  }

  /** Forgets every token of this process (a test, or a settings change that took another key). */
  clear(): void {
    this.held.clear();
  }
}
