import {
  applyDecorators,
  CanActivate,
  ExecutionContext,
  Inject,
  Injectable,
  Logger,
  Optional,
  SetMetadata,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiResponse } from '@nestjs/swagger';
import type { RedisClient } from '../../redis/redis-client';
import ipaddr from 'ipaddr.js';
import { createHmac, hkdfSync } from 'node:crypto';
import { Errors } from '../../common/errors/app-error';
import { ErrorBodyDto } from '../../common/http/api-docs';
import type { AppRequest } from '../../common/http/request-context';
import {
  retryAfterSeconds,
  takeTokens,
  TokenBucketAnswer,
  TokenBucketPolicy,
} from '../../common/rate-limit/token-bucket';
import { AppConfig } from '../../config/app-config';
import { REDIS } from '../../redis/redis.module';
import { normaliseEmail } from '../../common/validation/email';

/** The routes that take or renew credentials; each has its own per-address bucket. */
export type AuthAttemptRoute = 'login' | 'refresh' | 'refresh-token';

const AUTH_ATTEMPT_ROUTE = 'auth-attempt:route';

/**
 * The client address a bucket is kept for. IPv6 counts per /64: one subscriber usually holds a
 * whole /64, and a bucket per address would hand them 2^64 buckets. IPv4-mapped IPv6 is IPv4.
 */
export function addressBucket(ip: string): string {
  try {
    const address = ipaddr.process(ip);
    if (address.kind() === 'ipv4') return address.toString();
    const parts = (address as ipaddr.IPv6).toNormalizedString().split(':').slice(0, 4);
    return `${parts.join(':')}::/64`;
  } catch {
    return ip;
  }
}

/** What login hands back once it knows the password was right. */
export interface AccountAttempt {
  /** The password was right: the failure reserved for this attempt is given back. */
  succeeded(): Promise<void>;
}

/**
 * Password-guessing limits, in Redis so every API instance shares them (README "Security model").
 * - Per client address and route: AUTH_RATE_LIMIT_PER_ADDRESS requests per AUTH_RATE_LIMIT_WINDOW,
 *   successes included.
 * - Per account: LOGIN_MAX_FAILURES failed logins per LOGIN_FAILURE_WINDOW. The account is the
 *   normalised e-mail as typed, known or not, so a refusal says nothing about whether it exists; its
 *   key is an HMAC of the e-mail, never the address itself. A failure is reserved before the password
 *   is checked (concurrent guesses cannot overshoot) and given back when the password was right; a
 *   success never clears earlier failures, so a user who logs in meanwhile does not refill a guesser.
 * Both are token buckets (src/common/rate-limit): N at once, then one more every window / N.
 */
@Injectable()
export class LoginAttemptLimiter {
  private readonly logger = new Logger(LoginAttemptLimiter.name);
  private readonly perAddress: TokenBucketPolicy;
  private readonly perAccount: TokenBucketPolicy;
  /** Derived from JWT_SECRET, so the keys cannot be recomputed from a list of e-mails without it. */
  private readonly accountKeySecret: Buffer;

  constructor(
    // absent in the CLI's context (no Redis there, and no login route): every check then counts as Redis down
    @Optional() @Inject(REDIS) private readonly redis: RedisClient | undefined,
    config: AppConfig,
  ) {
    this.perAddress = {
      burst: config.AUTH_RATE_LIMIT_PER_ADDRESS,
      refillEveryMs: config.authRateLimitWindowMs / config.AUTH_RATE_LIMIT_PER_ADDRESS,
    };
    this.perAccount = {
      burst: config.LOGIN_MAX_FAILURES,
      refillEveryMs: config.loginFailureWindowMs / config.LOGIN_MAX_FAILURES,
    };
    this.accountKeySecret = Buffer.from(
      hkdfSync('sha256', config.jwtSecret, Buffer.alloc(0), 'login-attempt-limiter', 32),
    );
  }

  /**
   * Counts one request of `route` from `ip`; 429 past the limit. Redis not answering: login is
   * refused with 503 (guessing must not become unlimited while Redis is away), the refresh routes
   * go on (their tokens are 256-bit random or signed: nothing to guess, and sessions keep working).
   */
  async countAddress(route: AuthAttemptRoute, ip: string): Promise<void> {
    const address = addressBucket(ip);
    const answer = await this.take(`authlimit:address:${route}:${address}`, this.perAddress, 1, route);
    if (answer === null) return;
    if (answer.allowed) return;
    this.logger.warn({ route, address }, 'auth request refused: too many from this client address');
    throw Errors.rateLimited(retryAfterSeconds(answer.waitMs));
  }

  /** Reserves one failure of the account named by `email`; 429 when it has none left. */
  async reserveAccountFailure(email: string): Promise<AccountAttempt> {
    const account = this.accountKey(email);
    const key = `authlimit:account:${account}`;
    const answer = await this.take(key, this.perAccount, 1, 'login');
    if (answer && !answer.allowed) {
      // The HMAC's head tells an operator two refusals were for one account, and nothing more.
      this.logger.warn(
        { account: account.slice(0, 16) },
        'login refused: too many failures for this account',
      );
      throw Errors.rateLimited(retryAfterSeconds(answer.waitMs));
    }
    return {
      succeeded: async () => {
        // Not given back if Redis fails now: the user loses one failure's worth of budget, nothing more.
        await takeTokens(this.connection(), key, this.perAccount, -1).catch((err: unknown) =>
          this.logger.warn({ err }, 'login failure reservation not given back: Redis did not answer'),
        );
      },
    };
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

  /** The bucket's answer, or null when Redis did not answer on a route that may go on without it. */
  private async take(
    key: string,
    policy: TokenBucketPolicy,
    cost: number,
    route: AuthAttemptRoute,
  ): Promise<TokenBucketAnswer | null> {
    try {
      return await takeTokens(this.connection(), key, policy, cost);
    } catch (err) {
      if (route !== 'login') {
        this.logger.warn({ err, route }, 'auth rate limit skipped: Redis did not answer');
        return null;
      }
      this.logger.error({ err }, 'login refused: Redis did not answer, so attempts cannot be counted');
      throw Errors.serviceUnavailable('Login is unavailable for a moment; try again shortly');
    }
  }
}

/**
 * Global guard, registered before the access guards (app.module.ts): the per-address count must
 * see every request, including the refresh calls whose token the auth guard would refuse first.
 */
@Injectable()
export class AuthAttemptGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly limiter: LoginAttemptLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const route = this.reflector.get<AuthAttemptRoute | undefined>(AUTH_ATTEMPT_ROUTE, context.getHandler());
    if (!route) return true;
    const request = context.switchToHttp().getRequest<AppRequest>();
    await this.limiter.countAddress(route, request.ip);
    return true;
  }
}

/** Puts the route under the per-address auth limit (and documents its 429). */
export const LimitAuthAttempts = (route: AuthAttemptRoute) =>
  applyDecorators(
    SetMetadata(AUTH_ATTEMPT_ROUTE, route),
    ApiResponse({
      status: 429,
      type: ErrorBodyDto,
      description: 'RATE_LIMITED: too many attempts from this address (or, for login, for this account)',
    }),
  );
