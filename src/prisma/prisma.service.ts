import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient } from '../generated/prisma/client';
import { AppConfig } from '../config/app-config';

const logger = new Logger('PrismaService');

/**
 * The Prisma client over a pg pool (Prisma 7 driver adapter: no query-engine binary). The pool is
 * also `pool`, for the few hottest reads that go to PostgreSQL as named prepared statements without
 * Prisma's per-query work (measured: Prisma's runtime was 15% of the API's CPU on the tweets list).
 * One pool for both, so DATABASE_POOL_SIZE stays the process's whole connection budget.
 */
@Injectable()
export class PrismaService extends PrismaClient implements OnModuleDestroy {
  readonly pool: Pool;
  /**
   * Whether `pool` statements may be named (prepared once per connection). Not through PgBouncer in
   * transaction mode: the name lives on one server connection and the next statement may land on another.
   */
  readonly namedStatements: boolean;

  constructor(config: AppConfig) {
    const pool = new Pool({ connectionString: config.DATABASE_URL, max: config.DATABASE_POOL_SIZE });
    // An idle connection the server closes (restart, failover, pg_terminate_backend) is dropped by the
    // pool and replaced on the next query; without a listener its error would end the process.
    pool.on('error', (err) => logger.warn({ msg: 'idle database connection lost', error: err.message }));
    super({ adapter: new PrismaPg(pool) });
    this.pool = pool;
    this.namedStatements = !config.databaseThroughPgbouncer;
  }

  async onModuleDestroy(): Promise<void> {
    await this.$disconnect();
    await this.pool.end().catch(() => undefined);
  }
}

/** A transaction client, for services that write inside a caller's transaction. */
export type Tx = Parameters<Parameters<PrismaService['$transaction']>[0]>[0];
