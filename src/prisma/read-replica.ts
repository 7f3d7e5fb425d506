import { Logger } from '@nestjs/common';
import type { Pool, QueryResult, QueryResultRow } from 'pg';
import { Counter, Gauge } from 'prom-client';
import type { AppConfig } from '../config/app-config';
import { currentRequestScope } from '../logging/request-id';
import type { MetricsRegistry } from '../metrics/metrics-registry';
import { isDatabaseUnavailable } from './database-unavailable';
import { servicePool } from './service-pool';

const logger = new Logger('ReadReplica');

/**
 * The replica's lag in seconds: 0 when it has replayed all it has received (an idle primary sends
 * nothing, so the time since the last replayed commit would keep growing), else the age of the last
 * commit it replayed. A server that is not a standby (DATABASE_READ_URL set to a primary) lags 0.
 */
const LAG_STATEMENT = `
  SELECT CASE WHEN NOT pg_is_in_recovery() THEN 0
              WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
              ELSE coalesce(extract(epoch FROM now() - pg_last_xact_replay_timestamp()), 0)
         END::float8 AS lag`;

/** Why a lag-tolerant read went where it went (the `reason` label of database_reads_total). */
type Reason = 'fresh' | 'lagging' | 'unknown' | 'caller_wrote' | 'replica_failed';

/**
 * DATABASE_READ_URL, for the reads that tolerate lag (docs/architecture.md#read-replicas). Its lag is
 * measured every DATABASE_READ_LAG_CHECK_INTERVAL from the first such read on (a worker, which makes
 * none, never measures); a read goes to it while the last measure is at most DATABASE_READ_MAX_LAG
 * and the caller has not just written (`readsFromPrimary` of the request's scope, set by the API's
 * ReadYourWritesInterceptor), else to the primary. A read the replica fails for want of a server is
 * run again on the primary, and the replica counts as unknown until the next measure answers.
 */
export class ReadReplica {
  private pool: Pool | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** seconds, as last measured; undefined until a measure answers, or after one failed */
  private lagSeconds: number | undefined;
  private readonly maxLagSeconds: number;
  private readonly reads?: Counter<'target' | 'reason'>;

  constructor(
    private readonly config: AppConfig,
    /** DATABASE_READ_URL with the prepared pool's plan settings (its statements are named too) */
    private readonly url: string,
    metrics?: MetricsRegistry,
  ) {
    this.maxLagSeconds = config.databaseReadMaxLagMs / 1000;
    if (!metrics) return;
    this.reads = new Counter({
      name: 'database_reads_total',
      help: 'Reads that tolerate lag, by where they ran (replica or primary) and why',
      labelNames: ['target', 'reason'],
      registers: [metrics.registry],
    });
    const lag = new Gauge({
      name: 'database_replica_lag_seconds',
      help: 'Lag of DATABASE_READ_URL as last measured (-1: unknown, its reads go to the primary)',
      registers: [metrics.registry],
    });
    lag.set(-1);
    this.onMeasure = (seconds) => lag.set(seconds ?? -1);
  }

  private onMeasure: (seconds: number | undefined) => void = () => undefined;

  /** The last measured lag in seconds, undefined when unknown. */
  get lag(): number | undefined {
    return this.lagSeconds;
  }

  /**
   * Runs a lag-tolerant read on the replica when it may serve it, else (or when the replica fails
   * for want of a server) through `primary`.
   */
  async query<R extends QueryResultRow>(
    config: { text: string; values: unknown[]; name?: string; rowMode?: 'array' },
    primary: () => Promise<QueryResult<R>>,
  ): Promise<QueryResult<R>> {
    const reason = this.choose();
    if (reason !== 'fresh') {
      this.reads?.inc({ target: 'primary', reason });
      return primary();
    }
    try {
      const result = await this.replicaPool().query<R>(config);
      this.reads?.inc({ target: 'replica', reason });
      return result;
    } catch (err) {
      if (!isDatabaseUnavailable(err)) throw err;
      this.setLag(undefined);
      this.reads?.inc({ target: 'primary', reason: 'replica_failed' });
      return primary();
    }
  }

  private choose(): Reason {
    this.startMeasuring();
    if (currentRequestScope()?.readsFromPrimary) return 'caller_wrote';
    if (this.lagSeconds === undefined) return 'unknown';
    return this.lagSeconds > this.maxLagSeconds ? 'lagging' : 'fresh';
  }

  private replicaPool(): Pool {
    if (!this.pool) {
      this.pool = servicePool(this.config, this.url, this.config.DATABASE_POOL_SIZE, 'replica');
    }
    return this.pool;
  }

  private startMeasuring(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.measure(), this.config.databaseReadLagCheckIntervalMs);
    this.timer.unref();
    void this.measure();
  }

  /** One measure of the lag; a failure makes it unknown (reads go to the primary until one answers). */
  async measure(): Promise<number | undefined> {
    try {
      const { rows } = await this.replicaPool().query<{ lag: number }>(LAG_STATEMENT);
      this.setLag(rows[0].lag);
    } catch (err) {
      if (this.lagSeconds !== undefined)
        logger.warn({ msg: 'replica lag unknown: reads go to the primary', error: (err as Error).message });
      this.setLag(undefined);
    }
    return this.lagSeconds;
  }

  private setLag(seconds: number | undefined): void {
    this.lagSeconds = seconds;
    this.onMeasure(seconds);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.pool?.end().catch(() => undefined);
  }
}
