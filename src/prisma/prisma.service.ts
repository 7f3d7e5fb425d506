import { Injectable, OnModuleDestroy, OnModuleInit, Optional } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import type { Pool, QueryResult, QueryResultRow } from 'pg';
import { PrismaClient } from '../generated/prisma/client';
import { AppConfig } from '../config/app-config';
import { MetricsRegistry } from '../metrics/metrics-registry';
import { ReadReplica } from './read-replica';
import { releaseQueryCompilerSource } from './query-compiler-source';
import { servicePool } from './service-pool';
import { keepBatchesApart, routeToBoundConnection } from './request-transaction';

/**
 * The settings of each connection of the prepared-statement pool (see preparedQuery). JIT off: a
 * generic plan does not know its LIMIT and costs a page as a tenth of the community's rows, so at
 * 10^7 rows its estimate crossed jit_above_cost, and PostgreSQL JIT-compiled the statement at every
 * execution (JIT code is not kept with the plan) to read 20 rows
 * (bench/README.md#the-cost-curve-benchcost-curvemjs).
 */
const PLAN_ONCE = '-c plan_cache_mode=force_generic_plan -c jit=off';

/**
 * The Prisma client over a pg pool (Prisma 7 driver adapter: no query-engine binary). The pool is
 * also `pool`, for the raw statements of the worker (Prisma's per-query work was a measurable part
 * of each attempt's latency). The API's hottest reads skip Prisma too (its runtime was a sizeable
 * share of the API's CPU on the tweets list: bench/README.md#tweets-list-benchtweets-listmjs) and run on a
 * second, lazily opened pool: preparedQuery.
 */
@Injectable()
export class PrismaService extends PrismaClient implements OnModuleInit, OnModuleDestroy {
  readonly pool: Pool;
  /**
   * Whether `pool` statements may be named (prepared once per connection). Not through PgBouncer in
   * transaction mode: the name lives on one server connection and the next statement may land on another.
   */
  readonly namedStatements: boolean;
  /** The pool of preparedQuery; none through PgBouncer, where those statements run unnamed on `pool`. */
  readonly preparedPool: Pool | undefined;

  /** DATABASE_READ_URL's reads (lagTolerantQuery), when it is set. */
  readonly replica: ReadReplica | undefined;

  constructor(config: AppConfig, @Optional() metrics?: MetricsRegistry) {
    // A request whose writes are bound to one transaction (an Idempotency-Key's) runs them all on
    // its connection, Prisma's and the raw statements alike: src/prisma/request-transaction.ts.
    const pool = routeToBoundConnection(
      servicePool(config, config.DATABASE_URL, config.DATABASE_POOL_SIZE, 'database'),
    );
    super({ adapter: new PrismaPg(pool) });
    // a batch of reads Prisma makes of several requests' calls runs in none's transaction
    keepBatchesApart(this);
    this.pool = pool;
    this.namedStatements = !config.databaseThroughPgbouncer;
    this.preparedPool = this.namedStatements ? preparedStatementPool(config) : undefined;
    this.replica = config.DATABASE_READ_URL
      ? new ReadReplica(config, withPlanOnce(config.DATABASE_READ_URL), metrics)
      : undefined;
  }

  /**
   * A read that tolerates lag (the delivery log, the messages views, the figures, the paged lists):
   * on DATABASE_READ_URL while it is fresh enough and the caller has not just written
   * (docs/architecture.md#read-replicas), else as preparedQuery (named: `name`) or on `pool` (no name).
   */
  lagTolerantQuery<R extends QueryResultRow>(
    name: string | undefined,
    text: string,
    values: unknown[],
  ): Promise<QueryResult<R>> {
    const primary = () =>
      name === undefined ? this.pool.query<R>(text, values) : this.preparedQuery<R>(name, text, values);
    if (!this.replica) return primary();
    const named = name === undefined ? undefined : this.statementName(name);
    return this.replica.query<R>({ name: named, text, values }, primary);
  }

  /** lagTolerantQuery's rows as arrays, as preparedRows gives them. */
  async lagTolerantRows<R extends unknown[]>(name: string, text: string, values: unknown[]): Promise<R[]> {
    if (!this.replica) return this.preparedRows<R>(name, text, values);
    const target = this.preparedTarget(name);
    const { rows } = await this.replica.query<R>(
      { name: this.statementName(name), text, values, rowMode: 'array' },
      () => target.pool.query<R>({ name: target.name, text, values, rowMode: 'array' }),
    );
    return rows;
  }

  /**
   * A hot read as a named prepared statement on its own pool, every connection of which plans each
   * statement once (plan_cache_mode = force_generic_plan; again only when an ANALYZE or a migration
   * invalidates the plan, so the plan follows the table's statistics). On the shared pool PostgreSQL
   * re-planned these statements at every execution: their LIMIT and OFFSET are parameters, and a
   * generic plan, which cannot know them, assumes 10% of the rows are wanted, so it never looks
   * cheaper than a custom one: on the delivery log, planning took most of each statement's time and
   * PostgreSQL used more CPU per request than the API itself (the figures:
   * bench/README.md#other-reads-benchread-routesmjs). Their generic plans read the same indexes as the custom ones (EXPLAIN on
   * the benchmark's database; test/operations/hot-read-plans.e2e-spec.ts keeps them generic). Prisma's statements
   * stay on `pool`, planned per execution. Through PgBouncer: unnamed on `pool` (a name lives on one
   * server connection, and a session setting would leak to other clients).
   */
  preparedQuery<R extends QueryResultRow>(
    name: string,
    text: string,
    values: unknown[],
  ): Promise<QueryResult<R>> {
    const target = this.preparedTarget(name);
    return target.pool.query<R>({ name: target.name, text, values });
  }

  /**
   * preparedQuery's rows as arrays, in the statement's column order (pg's rowMode 'array'): for a
   * page of many rows, no object is built per row by field name before the caller builds its own.
   */
  async preparedRows<R extends unknown[]>(name: string, text: string, values: unknown[]): Promise<R[]> {
    const target = this.preparedTarget(name);
    const { rows } = await target.pool.query<R>({ name: target.name, text, values, rowMode: 'array' });
    return rows;
  }

  /** Where a hot read runs: named on the prepared pool, or unnamed on `pool` through PgBouncer. */
  private preparedTarget(name: string): { pool: Pool; name: string | undefined } {
    return this.preparedPool ? { pool: this.preparedPool, name } : { pool: this.pool, name: undefined };
  }

  /**
   * The name to give the worker's relay statement on `pool`, so each connection parses it once; none
   * behind PgBouncer in transaction mode, where the name lives on one server connection and the next
   * statement may land on another. After five runs PostgreSQL may keep a generic plan for a named
   * statement, made from the statistics of that moment: name only a statement whose plan cannot
   * depend on how many rows a table has (the claim and the finish stay unnamed for that reason).
   */
  statementName(name: string): string | undefined {
    return this.namedStatements ? name : undefined;
  }

  /**
   * Connecting builds Prisma's query compiler (no database connection is opened yet); its source is
   * then let go (releaseQueryCompilerSource).
   */
  async onModuleInit(): Promise<void> {
    await this.$connect();
    releaseQueryCompilerSource();
  }

  async onModuleDestroy(): Promise<void> {
    await this.$disconnect();
    await this.pool.end().catch(() => undefined);
    await this.preparedPool?.end().catch(() => undefined);
    await this.replica?.close();
  }
}

/** preparedQuery's pool: opened on first use (the worker and the CLI never use it). */
function preparedStatementPool(config: AppConfig): Pool {
  return servicePool(
    config,
    withPlanOnce(config.DATABASE_URL),
    config.DATABASE_PREPARED_POOL_SIZE,
    'prepared-statement',
  );
}

/**
 * DATABASE_URL with PLAN_ONCE added to its startup `options` (after any it has, or PGOPTIONS): a
 * setting of the connection itself, so no statement of its own; pg lets the URL's `options`
 * replace a pool's, hence in the URL.
 */
export function withPlanOnce(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  const own = url.searchParams.get('options') ?? process.env.PGOPTIONS;
  url.searchParams.set('options', own ? `${own} ${PLAN_ONCE}` : PLAN_ONCE);
  return url.toString();
}

/** A transaction client, for services that write inside a caller's transaction. */
export type Tx = Parameters<Parameters<PrismaService['$transaction']>[0]>[0];
