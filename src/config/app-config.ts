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
  ValidateBy,
  ValidationOptions,
} from 'class-validator';
import ms from 'ms';
import { isIP } from 'node:net';

/**
 * A duration is anything the `ms` package reads: `250ms`, `90s`, `1.5h`, `7 days`, `2 weeks`, `1y`.
 * A plain number is milliseconds, as `ms` reads it (`90` is 90 ms, not 90 s). Negative values are refused.
 */
function isDuration(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    return durationMs(value) >= 0;
  } catch {
    return false;
  }
}

function IsDuration(example: string, options?: ValidationOptions & { list?: boolean }): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isDuration',
      validator: {
        validate: (value: unknown) =>
          options?.list
            ? typeof value === 'string' && value.split(',').every((part) => isDuration(part))
            : isDuration(value),
        defaultMessage: (args) =>
          options?.list
            ? `${args?.property} must be a comma-separated list of durations such as ${example} ` +
              `(ms syntax: 90s, 1.5h, 7 days; a plain number is milliseconds), got '${String(args?.value)}'`
            : `${args?.property} must be a duration such as ${example} ` +
              `(ms syntax: 90s, 1.5h, 7 days; a plain number is milliseconds), got '${String(args?.value)}'`,
      },
    },
    options,
  );
}
const toBool = ({ value }: { value: unknown }) =>
  value === undefined ? undefined : value === true || value === 'true' || value === '1';
const toInt = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : Number(value);

/** A DNS name (single labels such as `localhost` too), optionally ending in a dot. */
const HOSTNAME = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

/** One DNS server as Node's resolver takes it: `1.2.3.4`, `1.2.3.4:5353`, `::1` or `[::1]:5353`. */
function isDnsServer(entry: string): boolean {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(entry);
  const withPort = /^([^:]+):(\d{1,5})$/.exec(entry);
  const [address, port] = bracketed
    ? [bracketed[1], bracketed[2]]
    : withPort
      ? [withPort[1], withPort[2]]
      : [entry, undefined];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return false;
  return bracketed || !withPort ? isIP(address) !== 0 : isIP(address) === 4;
}

/** A comma-separated setting each of whose entries passes `check`. */
const IsListOf = (check: (entry: string) => boolean, message: string) =>
  ValidateBy({
    name: 'isListOf',
    validator: {
      validate: (value: unknown) =>
        typeof value === 'string' && value.split(',').every((entry) => check(entry.trim())),
      defaultMessage: () => message,
    },
  });

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
   * HOST but apart from the public PORT; unset: 9464 for the API, 9465 for the worker; 0: off.
   */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  METRICS_PORT?: number;

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

  @Matches(/^rediss?:\/\//, { message: 'REDIS_URL must be a redis:// URL' })
  REDIS_URL = 'redis://127.0.0.1:6379';

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

  @IsOptional()
  @Matches(/^[A-Za-z0-9+/]{43}=$/, { message: 'WEBHOOK_SECRET_ENCRYPTION_KEY must be base64 of 32 bytes' })
  WEBHOOK_SECRET_ENCRYPTION_KEY?: string;

  @IsDuration('24h')
  WEBHOOK_SECRET_OVERLAP = '24h';

  @Transform(toInt)
  @IsInt()
  @Min(2)
  @Max(10)
  WEBHOOK_MAX_LIVE_SECRETS = 3;

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

  /** Jobs one worker process runs at once. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  WORKER_CONCURRENCY = 50;

  /** How often the relay polls the outbox when no notification woke it. */
  @IsDuration('1s')
  OUTBOX_POLL_INTERVAL = '1s';

  /** How long a stopping worker waits for in-flight jobs. */
  @IsDuration('20s')
  WORKER_SHUTDOWN_TIMEOUT = '20s';

  /** How often a worker looks for jobs whose worker died (their lock expired); also the lock's length. */
  @IsDuration('30s')
  WORKER_STALLED_INTERVAL = '30s';

  // ------------------------------------------------------------- derived, typed views

  get isProduction(): boolean {
    return this.NODE_ENV === 'production';
  }
  get jwtSecret(): string {
    return this.JWT_SECRET ?? DEV_JWT_SECRET;
  }
  get jwtExpiresInSeconds(): number {
    return Math.floor(durationMs(this.JWT_EXPIRES_IN) / 1000);
  }
  get refreshTokenTtlMs(): number {
    return durationMs(this.REFRESH_TOKEN_EXPIRES_IN);
  }
  get webhookEncryptionKey(): Buffer {
    return Buffer.from(this.WEBHOOK_SECRET_ENCRYPTION_KEY ?? DEV_WEBHOOK_ENCRYPTION_KEY, 'base64');
  }
  get webhookSecretOverlapMs(): number {
    return durationMs(this.WEBHOOK_SECRET_OVERLAP);
  }
  get webhookTimeoutMs(): number {
    return durationMs(this.WEBHOOK_TIMEOUT);
  }
  get webhookRetryScheduleMs(): number[] {
    return this.WEBHOOK_RETRY_SCHEDULE.split(',').map((d) => durationMs(d.trim()));
  }
  get webhookAutoDisableAfterMs(): number {
    return durationMs(this.WEBHOOK_AUTO_DISABLE_AFTER);
  }
  get outboxPollIntervalMs(): number {
    return durationMs(this.OUTBOX_POLL_INTERVAL);
  }
  get workerShutdownTimeoutMs(): number {
    return durationMs(this.WORKER_SHUTDOWN_TIMEOUT);
  }
  get workerStalledIntervalMs(): number {
    return durationMs(this.WORKER_STALLED_INTERVAL);
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
  /** DNS servers for verification lookups, or undefined for the system's. */
  get dnsResolvers(): string[] | undefined {
    return this.DNS_RESOLVER?.split(',').map((entry) => entry.trim());
  }
}

export function durationMs(value: string): number {
  const parsed = ms(value.trim() as ms.StringValue);
  if (typeof parsed !== 'number' || !Number.isFinite(parsed)) throw new Error(`not a duration: ${value}`);
  return parsed;
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
  if (problems.length > 0) {
    throw new ConfigValidationError(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
  return { config, warnings };
}
