import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { IsDuration, IsEncryptionKeyRing, IsPositiveDuration, toBool, toInt } from '../config-validation';
import { AccessSettings } from './access.settings';

/** A development-only key so that every local process (API, worker, CLI) agrees; never in production. */
export const DEV_WEBHOOK_ENCRYPTION_KEY = Buffer.alloc(32, 'community-platform-dev-key').toString('base64');

/** http://[user:password@]host:port, nothing after the port but an optional slash. */
const EGRESS_PROXY_PATTERN =
  /^http:\/\/(?:[^\s/@:]+(?::[^\s/@]*)?@)?(?:\[[0-9A-Fa-f:.]+\]|[^\s/@:[\]]+):\d{1,5}\/?$/;
/**
 * Webhook delivery: secrets, the URL rules, retries, endpoint slots, the worker, retention and replays.
 * One part of AppConfig (src/config/app-config.ts), which validates them all at once; the parts extend
 * one another only so that one class holds every setting.
 */
export class WebhookSettings extends AccessSettings {
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
   * The HTTP forward proxy every delivery, test and OAuth token request goes through
   * (docs/operations.md#a-static-egress-address); unset: straight out. The message never repeats the
   * value: it may hold the proxy's password.
   */
  @IsOptional()
  @Matches(EGRESS_PROXY_PATTERN, {
    message:
      'WEBHOOK_EGRESS_PROXY must be http://[user:password@]host:port (an HTTP forward proxy; https targets go through CONNECT)',
  })
  WEBHOOK_EGRESS_PROXY?: string;

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

  /**
   * The share of wall time (percent) a worker's pruning may work: after each chunk it pauses so its work
   * stays within this share, so deliveries keep the database while a large log is pruned, and a busier
   * database (slower chunks) gets longer pauses. 100: no pause.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100)
  WEBHOOK_LOG_PRUNE_DUTY_PERCENT = 25;

  /** How often an idle worker looks for bulk replays to take batches of. */
  @IsPositiveDuration('1s')
  WEBHOOK_REPLAY_INTERVAL = '1s';

  /** How long a stopping worker waits for in-flight jobs. */
  @IsDuration('20s')
  WORKER_SHUTDOWN_TIMEOUT = '20s';

  /** How often a worker looks for jobs whose worker died (their lock expired); also the lock's length. */
  @IsDuration('30s')
  WORKER_STALLED_INTERVAL = '30s';

  /** The webhook-secret key ring, newest (the one that encrypts) first. */
  get webhookEncryptionKeys(): Buffer[] {
    return (this.WEBHOOK_SECRET_ENCRYPTION_KEY ?? DEV_WEBHOOK_ENCRYPTION_KEY)
      .split(',')
      .map((entry) => Buffer.from(entry.trim(), 'base64'));
  }
}
