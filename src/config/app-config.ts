import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  validateSync,
} from 'class-validator';
import {
  durationListMs,
  durationMs,
  HOSTNAME,
  isDnsServer,
  IsDuration,
  IsEncryptionKeyRing,
  isHostPort,
  IsListenAddress,
  IsListOf,
  IsPositiveDuration,
  toBool,
  toInt,
  urlSaysPgbouncer,
} from './config-validation';

/** A development-only key so that every local process (API, worker, CLI) agrees; never in production. */
export const DEV_WEBHOOK_ENCRYPTION_KEY = Buffer.alloc(32, 'community-platform-dev-key').toString('base64');
export const DEV_JWT_SECRET = 'community-platform-dev-jwt-secret-not-for-production';

/**
 * Every setting the service reads, validated once at start-up. Defaults are the contract's; the
 * README's configuration table and .env.example list the same names.
 */
export class AppConfig {
  @IsIn(['development', 'test', 'production'])
  NODE_ENV: 'development' | 'test' | 'production' = 'development';

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  @IsString()
  HOST = '0.0.0.0';

  /**
   * Port of the Prometheus /metrics server (and the worker's /health/live and /health/ready), on
   * METRICS_HOST, apart from the public PORT; unset: 9464 for the API, 9465 for the worker; 0: off.
   */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  METRICS_PORT?: number;

  /**
   * Address the metrics server listens on: loopback by default, since the port is for a private
   * network only; a container sets 0.0.0.0 so that Prometheus on its network can reach it
   * (docs/operations.md "Metrics and alerts").
   */
  @IsListenAddress('METRICS_HOST')
  METRICS_HOST = '127.0.0.1';

  /**
   * Set: GET /metrics answers 401 without `Authorization: Bearer <METRICS_TOKEN>` (the health routes
   * stay open). At least 32 characters without spaces, e.g. `openssl rand -hex 32`.
   */
  @IsOptional()
  @Matches(/^[\x21-\x7e]{32,}$/, {
    message:
      'METRICS_TOKEN must be at least 32 printable characters without spaces (e.g. openssl rand -hex 32)',
  })
  METRICS_TOKEN?: string;

  /** Base address printed at start-up and used in embed URLs. */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+(\/.*)?$/, { message: 'PUBLIC_BASE_URL must be an http(s) URL' })
  PUBLIC_BASE_URL?: string;

  /**
   * Further names the service answers on (comma-separated); with localhost and PUBLIC_BASE_URL's
   * host they can never be claimed as a community's custom domain, nor resolve to one.
   */
  @IsOptional()
  @IsListOf((entry) => HOSTNAME.test(entry), 'SERVICE_HOSTNAMES must be a comma-separated list of hostnames')
  SERVICE_HOSTNAMES?: string;

  /** DNS servers that custom-domain verification asks for TXT records; unset: the system's. */
  @IsOptional()
  @IsListOf(
    isDnsServer,
    'DNS_RESOLVER must be a comma-separated list of IP addresses with optional ports, e.g. 127.0.0.1:5353',
  )
  DNS_RESOLVER?: string;

  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgresql:// URL' })
  DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/community_platform';

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(200)
  DATABASE_POOL_SIZE = 10;

  /**
   * The API's second pool, for its hot reads as named prepared statements (PrismaService.preparedQuery),
   * opened lazily (the worker and the CLI never open it). Not used through PgBouncer.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(200)
  DATABASE_PREPARED_POOL_SIZE = 4;

  /**
   * DATABASE_URL goes through PgBouncer in transaction pooling mode (also turned on by `pgbouncer=true`
   * in DATABASE_URL's query): no named prepared statements (a pgbouncer before 1.21 cannot follow them
   * from one server connection to the next), and no LISTEN on DATABASE_URL (see DATABASE_DIRECT_URL).
   */
  @Transform(toBool)
  @IsBoolean()
  DATABASE_PGBOUNCER = false;

  /**
   * PostgreSQL itself, bypassing PgBouncer: the worker's LISTEN for outbox commits and `prisma migrate
   * deploy` (its session advisory lock) use it. Behind PgBouncer without it, the relay polls every
   * OUTBOX_POLL_INTERVAL instead of listening.
   */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_DIRECT_URL must be a postgresql:// URL' })
  DATABASE_DIRECT_URL?: string;

  @Matches(/^rediss?:\/\//, { message: 'REDIS_URL must be a redis:// URL' })
  REDIS_URL = 'redis://127.0.0.1:6379';

  /**
   * Seed nodes of a Redis Cluster (comma-separated host:port). Set, every Redis use of the process
   * goes to the cluster (src/redis/redis-client.ts) and REDIS_URL only lends its credentials.
   */
  @IsOptional()
  @IsListOf(
    isHostPort,
    'REDIS_CLUSTER_NODES must be a comma-separated list of host:port, e.g. 10.0.0.1:7000,10.0.0.2:7000',
  )
  REDIS_CLUSTER_NODES?: string;

  /** Prefix of every Redis key (queues, rate-limit buckets): one per environment. */
  @Matches(/^[A-Za-z0-9:_-]{1,64}$/, { message: 'REDIS_KEY_PREFIX must be 1-64 of A-Z a-z 0-9 : _ -' })
  REDIS_KEY_PREFIX = 'cp';

  @Matches(/^(fatal|error|warn|info|debug|trace|silent)$/)
  LOG_LEVEL = 'info';

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

  /** A key ring, newest first: the newest encrypts, every key decrypts (rotation: docs/operations.md). */
  @IsOptional()
  @IsEncryptionKeyRing()
  WEBHOOK_SECRET_ENCRYPTION_KEY?: string;

  @IsDuration('24h')
  WEBHOOK_SECRET_OVERLAP = '24h';

  @Transform(toInt)
  @IsInt()
  @Min(2)
  @Max(10)
  WEBHOOK_MAX_LIVE_SECRETS = 3;

  /** Events one recover call queues at most; it answers how many remain for the next call. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  WEBHOOK_RECOVER_MAX = 10_000;

  /** Attempts one bulk-replay batch queues at most, in one transaction (docs/operations.md#bulk-replays). */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10_000)
  WEBHOOK_REPLAY_BATCH = 500;

  /** A replay with this many of its attempts still waiting to be sent takes no further batch until they go. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  WEBHOOK_REPLAY_MAX_PENDING = 2_000;

  @Transform(toBool)
  @IsBoolean()
  WEBHOOK_ALLOW_INSECURE_TARGETS = false;

  /**
   * The demo's state file (logins, API key, the local receiver's signing secret), written by the
   * seed and `npm start` outside the repository; default $XDG_STATE_HOME/community-platform/demo.json
   * or ~/.community-platform/demo.json (src/cli/demo-state.ts).
   */
  @IsOptional()
  @IsString()
  DEMO_STATE_FILE?: string;

  @IsDuration('15s')
  WEBHOOK_TIMEOUT = '15s';

  @IsDuration('5s,5m,30m', { list: true })
  WEBHOOK_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';

  @IsDuration('5d')
  WEBHOOK_AUTO_DISABLE_AFTER = '5d';

  @Transform(toInt)
  @IsInt()
  @Min(1)
  WEBHOOK_AUTO_DISABLE_MIN_FAILURES = 10;

  /** Webhook endpoints one community may have (409 CONFLICT past it): bounds one event's fan-out. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10000)
  WEBHOOK_MAX_ENDPOINTS_PER_COMMUNITY = 50;

  /**
   * Attempts of one endpoint in flight at once across every worker: a slow or hanging receiver
   * holds at most this many worker slots, the rest of its jobs wait in Redis (endpoint-slots.ts).
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT = 10;

  /**
   * How long an endpoint slot stays held without a renewal. A worker renews the leases of its
   * requests in flight every WEBHOOK_SLOT_RENEW_INTERVAL, so a killed worker's slots free themselves
   * within this; a worker that cannot renew for this long (Redis unreachable, the process stalled)
   * loses them, says so, and its request may then run beside another (endpoint-slots.ts).
   */
  @IsPositiveDuration('3s')
  WEBHOOK_SLOT_LEASE = '3s';

  /**
   * How often a worker renews every endpoint-slot lease it holds: one script per endpoint, all in
   * one round trip. At most half of WEBHOOK_SLOT_LEASE, so that one late renewal loses nothing.
   */
  @IsPositiveDuration('1s')
  WEBHOOK_SLOT_RENEW_INTERVAL = '1s';

  /**
   * Whether X-Forwarded-For names the client (Fastify's trustProxy): `false` (default: the socket's
   * address), `true` (every hop: only behind a proxy that overwrites the header), or a number of
   * proxy hops to believe (1 = the address the nearest proxy saw; safe with proxies that append).
   */
  @Matches(/^(true|false|\d{1,2})$/, {
    message: 'TRUST_PROXY must be true, false or a number of proxy hops (e.g. 1)',
  })
  TRUST_PROXY = 'false';

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

  /**
   * Jobs one worker process runs at once. Each attempt's claim and finish share statements with the
   * others in flight (docs/architecture.md#delivery-worker), so more in flight means fuller statements
   * and less PostgreSQL per delivery; one endpoint still gets WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  WORKER_CONCURRENCY = 100;

  /** How often the relay polls the outbox when no notification woke it. */
  @IsDuration('1s')
  OUTBOX_POLL_INTERVAL = '1s';

  /**
   * How often a worker re-queues due deliveries that have no queue job (Redis emptied) and closes
   * attempts whose worker died mid-send: a lost job waits at most this long.
   */
  @IsDuration('30s')
  WEBHOOK_SWEEP_INTERVAL = '30s';

  /** How long an event's body is kept after its last delivery attempt (the log shows it; resend needs it). */
  @IsDuration('30d')
  WEBHOOK_MESSAGE_RETENTION = '30d';

  /**
   * How long the delivery log keeps a message's attempts after its last one, for PRO and ENTERPRISE
   * communities (docs/api.md#retention-of-the-delivery-log).
   */
  @IsDuration('90d')
  WEBHOOK_LOG_RETENTION = '90d';

  /** The same for FREE communities: shorter, as the plan is. */
  @IsDuration('30d')
  WEBHOOK_LOG_RETENTION_FREE = '30d';

  /** How often a worker deletes the delivery log's attempts past retention. */
  @IsPositiveDuration('10m')
  WEBHOOK_LOG_PRUNE_INTERVAL = '10m';

  /** How often an idle worker looks for bulk replays to take batches of. */
  @IsPositiveDuration('1s')
  WEBHOOK_REPLAY_INTERVAL = '1s';

  /** How long a stopping worker waits for in-flight jobs. */
  @IsDuration('20s')
  WORKER_SHUTDOWN_TIMEOUT = '20s';

  /** How often a worker looks for jobs whose worker died (their lock expired); also the lock's length. */
  @IsDuration('30s')
  WORKER_STALLED_INTERVAL = '30s';

  // ------------------------------------------- durations, parsed once by loadConfig

  /*
   * The duration settings above in the unit their users want. loadConfig fills them from the
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
  readonly webhookReplayIntervalMs!: number;
  readonly workerStalledIntervalMs!: number;
  readonly authRateLimitWindowMs!: number;
  readonly loginFailureWindowMs!: number;
  readonly idempotencyKeyTtlMs!: number;

  // ------------------------------------------------------------- derived, typed views

  get isProduction(): boolean {
    return this.NODE_ENV === 'production';
  }
  get jwtSecret(): string {
    return this.JWT_SECRET ?? DEV_JWT_SECRET;
  }
  /** The webhook-secret key ring, newest (the one that encrypts) first. */
  get webhookEncryptionKeys(): Buffer[] {
    return (this.WEBHOOK_SECRET_ENCRYPTION_KEY ?? DEV_WEBHOOK_ENCRYPTION_KEY)
      .split(',')
      .map((entry) => Buffer.from(entry.trim(), 'base64'));
  }
  /** Fastify's trustProxy: false, true (every hop) or the number of hops to believe. */
  get trustProxy(): boolean | number {
    if (this.TRUST_PROXY === 'true') return true;
    if (this.TRUST_PROXY === 'false') return false;
    const hops = Number(this.TRUST_PROXY);
    return hops === 0 ? false : hops;
  }
  /** DATABASE_URL leads to PgBouncer in transaction mode (DATABASE_PGBOUNCER or `?pgbouncer=true`). */
  get databaseThroughPgbouncer(): boolean {
    return this.DATABASE_PGBOUNCER || urlSaysPgbouncer(this.DATABASE_URL);
  }
  /**
   * Where a session of its own (LISTEN) may be held: DATABASE_DIRECT_URL, else DATABASE_URL unless
   * that is PgBouncer (a LISTEN there lands on a server connection other clients then share).
   */
  get databaseSessionUrl(): string | undefined {
    return this.DATABASE_DIRECT_URL ?? (this.databaseThroughPgbouncer ? undefined : this.DATABASE_URL);
  }
  /** The metrics port of this kind of process (0: no metrics server). */
  metricsPort(process: 'api' | 'worker'): number {
    return this.METRICS_PORT ?? (process === 'api' ? 9464 : 9465);
  }
  get publicBaseUrl(): string {
    return (this.PUBLIC_BASE_URL ?? `http://localhost:${this.PORT}`).replace(/\/+$/, '');
  }
  /** The names the service answers on, lower-case: localhost, PUBLIC_BASE_URL's host, SERVICE_HOSTNAMES. */
  get serviceHostnames(): string[] {
    const listed = (this.SERVICE_HOSTNAMES ?? '').split(',').map((name) => name.trim());
    const names = ['localhost', new URL(this.publicBaseUrl).hostname, ...listed]
      .map((name) => name.toLowerCase().replace(/\.$/, ''))
      .filter((name) => name !== '');
    return [...new Set(names)];
  }
  /** The Redis Cluster's seed nodes, or undefined for the single node at REDIS_URL. */
  get redisClusterNodes(): { host: string; port: number }[] | undefined {
    return this.REDIS_CLUSTER_NODES?.split(',').map((entry) => {
      const at = entry.trim().lastIndexOf(':');
      return {
        host: entry
          .trim()
          .slice(0, at)
          .replace(/^\[|\]$/g, ''),
        port: Number(entry.trim().slice(at + 1)),
      };
    });
  }
  /** DNS servers for verification lookups, or undefined for the system's. */
  get dnsResolvers(): string[] | undefined {
    return this.DNS_RESOLVER?.split(',').map((entry) => entry.trim());
  }
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
  | 'webhookReplayIntervalMs'
  | 'workerStalledIntervalMs'
  | 'authRateLimitWindowMs'
  | 'loginFailureWindowMs'
  | 'idempotencyKeyTtlMs'
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
    webhookReplayIntervalMs: durationMs(config.WEBHOOK_REPLAY_INTERVAL),
    workerStalledIntervalMs: durationMs(config.WORKER_STALLED_INTERVAL),
    authRateLimitWindowMs: durationMs(config.AUTH_RATE_LIMIT_WINDOW),
    loginFailureWindowMs: durationMs(config.LOGIN_FAILURE_WINDOW),
    idempotencyKeyTtlMs: durationMs(config.IDEMPOTENCY_KEY_TTL),
  };
}
