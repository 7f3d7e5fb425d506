import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { createHmac, hkdfSync } from 'node:crypto';
import { Errors } from '../../common/errors/app-error';
import { addressBucket } from '../../common/rate-limit/address-bucket';
import {
  retryAfterSeconds,
  takeTokens,
  TokenBucketAnswer,
  TokenBucketPolicy,
} from '../../common/rate-limit/token-bucket';
import { normaliseEmail } from '../../common/validation/email';
import { AppConfig } from '../../config/app-config';
import type { RedisClient } from '../../redis/redis-client';
import { REDIS } from '../../redis/redis.module';

/** What login hands back once it knows the password was right. */
export interface AccountAttempt {
  /** The password was right: what was reserved for this attempt is given back. */
  succeeded(): Promise<void>;
}

/**
 * Login's failure accounting, in Redis so every API instance shares it (README "Security model",
 * docs/product-decisions.md "Limits and unmatched paths"). Not a route limit: it counts failed
 * passwords, reserving one before the check and giving it back on success. (The route's own count per
 * client address, AUTH_RATE_LIMIT_PER_ADDRESS per AUTH_RATE_LIMIT_WINDOW, is the `login` throttler of
 * src/common/guards/rate-limit.policies.ts.)
 * - Per account and client address: LOGIN_MAX_FAILURES failed logins per LOGIN_FAILURE_WINDOW. Past
 *   it that address is refused for that account even with the right password (otherwise the answer
 *   would tell a guesser which guess was right); other addresses are not, so nobody can lock an
 *   account's holder out by failing on purpose.
 * - Per account: LOGIN_ACCOUNT_MAX_FAILURES failed logins per LOGIN_FAILURE_WINDOW, from any address.
 *   Spent, it refuses only addresses that have themselves failed on the account within the window
 *   (the holder, from anywhere else, still logs in), and each other address gets one guess before it
 *   counts as one of them. So many addresses together get about the budget plus one guess each per
 *   window, instead of LOGIN_MAX_FAILURES each.
 * The account is the normalised e-mail as typed, known or not, so a refusal says nothing about
 * whether it exists; its keys hold an HMAC of the e-mail, never the e-mail itself. Failures are
 * reserved before the password is checked (concurrent guesses cannot overshoot) and given back when
 * it was right; a success never clears earlier failures, so a user logging in meanwhile does not
 * refill a guesser. The budgets are token buckets (src/common/rate-limit): N at once, then one more
 * every window / N.
 */
@Injectable()
export class LoginAttemptLimiter {
  private readonly logger = new Logger(LoginAttemptLimiter.name);
  private readonly perAccountAndAddress: TokenBucketPolicy;
  private readonly perAccount: TokenBucketPolicy;
  /** How long an address counts as having failed on an account after its last failure there. */
  private readonly failedMarkMs: number;
  /** Derived from JWT_SECRET, so the keys cannot be recomputed from a list of e-mails without it. */
  private readonly accountKeySecret: Buffer;

  constructor(
    // absent in the CLI's context (no Redis there, and no login route): every check then counts as Redis down
    @Optional() @Inject(REDIS) private readonly redis: RedisClient | undefined,
    config: AppConfig,
  ) {
    this.perAccountAndAddress = {
      burst: config.LOGIN_MAX_FAILURES,
      refillEveryMs: config.loginFailureWindowMs / config.LOGIN_MAX_FAILURES,
    };
    this.perAccount = {
      burst: config.LOGIN_ACCOUNT_MAX_FAILURES,
      refillEveryMs: config.loginFailureWindowMs / config.LOGIN_ACCOUNT_MAX_FAILURES,
    };
    this.failedMarkMs = Math.ceil(config.loginFailureWindowMs);
    this.accountKeySecret = Buffer.from(
      hkdfSync('sha256', config.jwtSecret, Buffer.alloc(0), 'login-attempt-limiter', 32),
    );
  }

  /**
   * Reserves one failed login of the account named by `email` from `ip`; 429 when that address has
   * no failures left for the account, or when the account's own budget is spent and this address
   * has already failed on it. Redis not answering: 503.
   */
  async reserveAccountFailure(email: string, ip: string): Promise<AccountAttempt> {
    const account = this.accountKey(email);
    const address = addressBucket(ip);
    const pairKey = `authlimit:account-address:${account}:${address}`;
    const accountWideKey = `authlimit:account:${account}`;
    const failedKey = `authlimit:account-failed:${account}:${address}`;
    // The HMAC's head tells an operator two refusals were for one account, and nothing more.
    const logged = { account: account.slice(0, 16), address };

    const pair = await this.takeForLogin(pairKey, this.perAccountAndAddress);
    if (!pair.allowed) {
      this.logger.warn(logged, 'login refused: too many failures for this account from this address');
      throw Errors.rateLimited(retryAfterSeconds(pair.waitMs));
    }
    const accountWide = await this.takeForLogin(accountWideKey, this.perAccount);
    // Marks the address as one that failed on the account for a window; NX tells whether it already
    // was: a fresh address gets its guess even when the account's budget is spent. A success removes
    // only a mark this attempt made, so earlier failures from the address stay on record.
    const firstFailureHere = await this.loginRedis((redis) =>
      accountWide.allowed
        ? this.markFailed(redis, failedKey)
        : redis.set(failedKey, '1', 'PX', this.failedMarkMs, 'NX').then((ok) => ok === 'OK'),
    );
    if (!accountWide.allowed && !firstFailureHere) {
      const markLeftMs = await this.loginRedis((redis) => redis.pttl(failedKey));
      await this.giveBack(pairKey, this.perAccountAndAddress);
      this.logger.warn(logged, 'login refused: account under guessing, and this address has failed on it');
      // Either lifts the refusal: the address's mark running out, or the account's next failure.
      throw Errors.rateLimited(retryAfterSeconds(Math.min(Math.max(markLeftMs, 0), accountWide.waitMs)));
    }
    return {
      succeeded: async () => {
        // Not given back if Redis fails now: the user loses one failure's worth of budget, nothing more.
        await Promise.all([
          this.giveBack(pairKey, this.perAccountAndAddress),
          accountWide.allowed ? this.giveBack(accountWideKey, this.perAccount) : undefined,
          firstFailureHere ? this.unmarkFailed(failedKey) : undefined,
        ]);
      },
    };
  }

  /** Sets the failed mark for a whole window from now; true when there was none. */
  private async markFailed(redis: RedisClient, key: string): Promise<boolean> {
    const [set] = (await redis
      .multi()
      .set(key, '1', 'PX', this.failedMarkMs, 'NX')
      .pexpire(key, this.failedMarkMs)
      .exec()) ?? [[new Error('transaction aborted'), null]];
    if (set[0]) throw set[0];
    return set[1] === 'OK';
  }

  private async giveBack(key: string, policy: TokenBucketPolicy): Promise<void> {
    await takeTokens(this.connection(), key, policy, -1).catch((err: unknown) =>
      this.logger.warn({ err }, 'login failure reservation not given back: Redis did not answer'),
    );
  }

  private async unmarkFailed(key: string): Promise<void> {
    await this.connection()
      .del(key)
      .catch((err: unknown) =>
        this.logger.warn({ err }, 'login failure mark not removed: Redis did not answer'),
      );
  }

  /** A Redis step of login: not answering means 503, as for the buckets. */
  private async loginRedis<T>(step: (redis: RedisClient) => Promise<T>): Promise<T> {
    try {
      return await step(this.connection());
    } catch (err) {
      this.logger.error({ err }, 'login refused: Redis did not answer, so attempts cannot be counted');
      throw Errors.serviceUnavailable('Login is unavailable for a moment; try again shortly');
    }
  }

  private connection(): RedisClient {
    if (!this.redis) throw new Error('no Redis connection in this process');
    return this.redis;
  }

  /** Lower-case, trimmed, NFKC: every spelling that reaches one account lands in one bucket. */
  private accountKey(email: string): string {
    const normalised = normaliseEmail(email.normalize('NFKC'));
    return createHmac('sha256', this.accountKeySecret).update(normalised).digest('hex');
  }

  /** A login bucket's answer; Redis not answering: 503. */
  private takeForLogin(key: string, policy: TokenBucketPolicy): Promise<TokenBucketAnswer> {
    return this.loginRedis((redis) => takeTokens(redis, key, policy));
  }
}
