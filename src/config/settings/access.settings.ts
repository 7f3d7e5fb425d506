import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { IsDuration, IsPositiveDuration, toInt } from '../config-validation';
import { StorageSettings } from './storage.settings';

/** The development-only JWT secret, so that every local process agrees; never in production. */
export const DEV_JWT_SECRET = 'community-platform-dev-jwt-secret-not-for-production';
/**
 * Logins, tokens, portal links, idempotency keys and the login rate limits.
 * One part of AppConfig (src/config/app-config.ts), which validates them all at once; the parts extend
 * one another only so that one class holds every setting.
 */
export class AccessSettings extends StorageSettings {
  @IsOptional()
  @IsString()
  @Matches(/^.{32,}$/s, { message: 'JWT_SECRET must be at least 32 characters' })
  JWT_SECRET?: string;

  @IsDuration('7d')
  JWT_EXPIRES_IN = '7d';

  @IsDuration('30d')
  REFRESH_TOKEN_EXPIRES_IN = '30d';

  /** How long a webhook portal link stays usable (it is single-use as well). */
  @IsDuration('10m')
  PORTAL_LINK_TTL = '10m';

  /** How long the portal session a link opens lasts (scoped to that community's webhook routes). */
  @IsDuration('1h')
  PORTAL_SESSION_TTL = '1h';

  /**
   * How long a write's answer stays stored under its Idempotency-Key (a repeat within it is answered
   * from storage; docs/idempotency.md). The worker prunes expired answers.
   */
  @IsPositiveDuration('24h')
  IDEMPOTENCY_KEY_TTL = '24h';

  /**
   * Answers one caller (identity and community) keeps under Idempotency-Keys; past it the oldest is
   * dropped (its key then runs anew). Bounds the table per caller (docs/idempotency.md#storage).
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  IDEMPOTENCY_KEYS_PER_CALLER = 10_000;

  /**
   * Login, refresh and portal-exchange requests one client address may make per
   * AUTH_RATE_LIMIT_WINDOW (each route).
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  AUTH_RATE_LIMIT_PER_ADDRESS = 100;

  @IsPositiveDuration('1m')
  AUTH_RATE_LIMIT_WINDOW = '1m';

  /**
   * Failed logins one account (known or not) may have from one client address per
   * LOGIN_FAILURE_WINDOW; past it that address is refused for that account, other addresses are not.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  LOGIN_MAX_FAILURES = 10;

  /**
   * Failed logins one account may have from all addresses together per LOGIN_FAILURE_WINDOW. Spent,
   * it refuses only the addresses that have failed on that account within the window (a fresh one
   * gets one guess first), so it slows distributed guessing without locking the holder out.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  LOGIN_ACCOUNT_MAX_FAILURES = 50;

  @IsPositiveDuration('15m')
  LOGIN_FAILURE_WINDOW = '15m';

  get jwtSecret(): string {
    return this.JWT_SECRET ?? DEV_JWT_SECRET;
  }
}
