import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { durationListMs, durationMs, urlSaysPgbouncer } from './config-validation';
import { WebhookSettings } from './settings/webhook.settings';

export { DEV_JWT_SECRET } from './settings/access.settings';
export { DEV_WEBHOOK_ENCRYPTION_KEY } from './settings/webhook.settings';

/**
 * Every setting the service reads, validated once at start-up. Its names and defaults are those of
 * docs/configuration.md#configuration, and .env.example lists the same names. The settings are declared
 * by concern under src/config/settings/ (server, storage, access, webhook), each part extending the one
 * before, so that this one class holds and validates them all.
 */
export class AppConfig extends WebhookSettings {
  // ------------------------------------------- durations, parsed once by loadConfig

  /*
   * The duration settings (src/config/settings/) in the unit their users want. loadConfig fills them from the
   * validated strings (parseDurations), so a reader gets a number, never a parse on each access.
   */
  readonly jwtExpiresInSeconds!: number;
  readonly refreshTokenTtlMs!: number;
  readonly portalLinkTtlMs!: number;
  /** At least 1: a portal session of zero seconds could never be used. */
  readonly portalSessionTtlSeconds!: number;
  readonly webhookSecretOverlapMs!: number;
  readonly webhookTimeoutMs!: number;
  readonly webhookRetryScheduleMs!: number[];
  readonly webhookAutoDisableAfterMs!: number;
  readonly outboxPollIntervalMs!: number;
  readonly workerShutdownTimeoutMs!: number;
  readonly webhookSweepIntervalMs!: number;
  readonly webhookSlotLeaseMs!: number;
  readonly webhookSlotRenewIntervalMs!: number;
  readonly webhookMessageRetentionMs!: number;
  readonly webhookLogRetentionMs!: number;
  readonly webhookLogRetentionFreeMs!: number;
  readonly webhookLogPruneIntervalMs!: number;
  readonly webhookLogPruneDutyPercent!: number;
  readonly webhookReplayIntervalMs!: number;
  readonly workerStalledIntervalMs!: number;
  readonly authRateLimitWindowMs!: number;
  readonly loginFailureWindowMs!: number;
  readonly idempotencyKeyTtlMs!: number;
  readonly databaseConnectTimeoutMs!: number;
  readonly databaseReadMaxLagMs!: number;
  readonly databaseReadLagCheckIntervalMs!: number;
  /**
   * How long a caller's reads stay on the primary after they wrote: the longest a write may take to
   * reach a replica still in use (its lag at most DATABASE_READ_MAX_LAG when last measured, one check
   * interval ago at most).
   */
  readonly readYourWritesWindowMs!: number;
}

export class ConfigValidationError extends Error {}

/**
 * Builds the configuration from an environment map. Throws one error naming every bad or missing
 * variable; returns the warnings a development start-up should log.
 */
export function loadConfig(env: Record<string, string | undefined>): {
  config: AppConfig;
  warnings: string[];
} {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const config = plainToInstance(AppConfig, present, { exposeDefaultValues: true });
  const problems = validateSync(config, { skipMissingProperties: false }).flatMap((e) =>
    Object.values(e.constraints ?? {}).map((m) => `${e.property}: ${m}`),
  );
  const warnings: string[] = [];
  if (config.isProduction) {
    if (!config.JWT_SECRET) problems.push('JWT_SECRET: required when NODE_ENV=production');
    if (!config.WEBHOOK_SECRET_ENCRYPTION_KEY)
      problems.push('WEBHOOK_SECRET_ENCRYPTION_KEY: required when NODE_ENV=production');
    if (config.WEBHOOK_ALLOW_INSECURE_TARGETS)
      problems.push('WEBHOOK_ALLOW_INSECURE_TARGETS: must not be true when NODE_ENV=production');
  } else {
    if (!config.JWT_SECRET) warnings.push('JWT_SECRET is not set: using the development secret');
    if (!config.WEBHOOK_SECRET_ENCRYPTION_KEY)
      warnings.push('WEBHOOK_SECRET_ENCRYPTION_KEY is not set: using the fixed development key');
    if (config.WEBHOOK_ALLOW_INSECURE_TARGETS)
      warnings.push(
        'WEBHOOK_ALLOW_INSECURE_TARGETS=true: webhook URL safety rules are off (development only)',
      );
  }
  if (urlSaysPgbouncer(config.DATABASE_DIRECT_URL))
    problems.push(
      'DATABASE_DIRECT_URL: must lead to PostgreSQL itself, not through PgBouncer (pgbouncer=true)',
    );
  if (config.databaseThroughPgbouncer && !config.DATABASE_DIRECT_URL)
    warnings.push(
      `DATABASE_URL goes through PgBouncer and DATABASE_DIRECT_URL is not set: the outbox relay polls every ${config.OUTBOX_POLL_INTERVAL} instead of listening for commits`,
    );
  if (
    problems.length === 0 &&
    2 * durationMs(config.WEBHOOK_SLOT_RENEW_INTERVAL) > durationMs(config.WEBHOOK_SLOT_LEASE)
  )
    problems.push(
      'WEBHOOK_SLOT_RENEW_INTERVAL: must be at most half of WEBHOOK_SLOT_LEASE, or one late renewal loses the slots',
    );
  if (problems.length > 0) {
    throw new ConfigValidationError(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
  return { config: Object.assign(config, parseDurations(config)), warnings };
}

/** The duration fields of AppConfig, each read from its (validated) setting. */
type ParsedDurations = Pick<
  AppConfig,
  | 'jwtExpiresInSeconds'
  | 'refreshTokenTtlMs'
  | 'portalLinkTtlMs'
  | 'portalSessionTtlSeconds'
  | 'webhookSecretOverlapMs'
  | 'webhookTimeoutMs'
  | 'webhookRetryScheduleMs'
  | 'webhookAutoDisableAfterMs'
  | 'outboxPollIntervalMs'
  | 'workerShutdownTimeoutMs'
  | 'webhookSweepIntervalMs'
  | 'webhookSlotLeaseMs'
  | 'webhookSlotRenewIntervalMs'
  | 'webhookMessageRetentionMs'
  | 'webhookLogRetentionMs'
  | 'webhookLogRetentionFreeMs'
  | 'webhookLogPruneIntervalMs'
  | 'webhookLogPruneDutyPercent'
  | 'webhookReplayIntervalMs'
  | 'workerStalledIntervalMs'
  | 'authRateLimitWindowMs'
  | 'loginFailureWindowMs'
  | 'idempotencyKeyTtlMs'
  | 'databaseConnectTimeoutMs'
  | 'databaseReadMaxLagMs'
  | 'databaseReadLagCheckIntervalMs'
  | 'readYourWritesWindowMs'
>;

function parseDurations(config: AppConfig): ParsedDurations {
  const seconds = (value: string) => Math.floor(durationMs(value) / 1000);
  return {
    jwtExpiresInSeconds: seconds(config.JWT_EXPIRES_IN),
    refreshTokenTtlMs: durationMs(config.REFRESH_TOKEN_EXPIRES_IN),
    portalLinkTtlMs: durationMs(config.PORTAL_LINK_TTL),
    portalSessionTtlSeconds: Math.max(1, seconds(config.PORTAL_SESSION_TTL)),
    webhookSecretOverlapMs: durationMs(config.WEBHOOK_SECRET_OVERLAP),
    webhookTimeoutMs: durationMs(config.WEBHOOK_TIMEOUT),
    webhookRetryScheduleMs: durationListMs(config.WEBHOOK_RETRY_SCHEDULE),
    webhookAutoDisableAfterMs: durationMs(config.WEBHOOK_AUTO_DISABLE_AFTER),
    outboxPollIntervalMs: durationMs(config.OUTBOX_POLL_INTERVAL),
    workerShutdownTimeoutMs: durationMs(config.WORKER_SHUTDOWN_TIMEOUT),
    webhookSweepIntervalMs: durationMs(config.WEBHOOK_SWEEP_INTERVAL),
    webhookSlotLeaseMs: durationMs(config.WEBHOOK_SLOT_LEASE),
    webhookSlotRenewIntervalMs: durationMs(config.WEBHOOK_SLOT_RENEW_INTERVAL),
    webhookMessageRetentionMs: durationMs(config.WEBHOOK_MESSAGE_RETENTION),
    webhookLogRetentionMs: durationMs(config.WEBHOOK_LOG_RETENTION),
    webhookLogRetentionFreeMs: durationMs(config.WEBHOOK_LOG_RETENTION_FREE),
    webhookLogPruneIntervalMs: durationMs(config.WEBHOOK_LOG_PRUNE_INTERVAL),
    webhookLogPruneDutyPercent: config.WEBHOOK_LOG_PRUNE_DUTY_PERCENT,
    webhookReplayIntervalMs: durationMs(config.WEBHOOK_REPLAY_INTERVAL),
    workerStalledIntervalMs: durationMs(config.WORKER_STALLED_INTERVAL),
    authRateLimitWindowMs: durationMs(config.AUTH_RATE_LIMIT_WINDOW),
    loginFailureWindowMs: durationMs(config.LOGIN_FAILURE_WINDOW),
    idempotencyKeyTtlMs: durationMs(config.IDEMPOTENCY_KEY_TTL),
    databaseConnectTimeoutMs: durationMs(config.DATABASE_CONNECT_TIMEOUT),
    databaseReadMaxLagMs: durationMs(config.DATABASE_READ_MAX_LAG),
    databaseReadLagCheckIntervalMs: durationMs(config.DATABASE_READ_LAG_CHECK_INTERVAL),
    readYourWritesWindowMs:
      durationMs(config.DATABASE_READ_MAX_LAG) + durationMs(config.DATABASE_READ_LAG_CHECK_INTERVAL),
  };
}
