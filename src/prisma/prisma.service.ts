import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client';
import { AppConfig } from '../config/app-config';

/** The Prisma client over a pg pool (Prisma 7 driver adapter: no query-engine binary). */
@Injectable()
export class PrismaService extends PrismaClient implements OnModuleDestroy {
  constructor(config: AppConfig) {
    super({
      adapter: new PrismaPg({ connectionString: config.DATABASE_URL, max: config.DATABASE_POOL_SIZE }),
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.$disconnect();
  }
}

/** A transaction client, for services that write inside a caller's transaction. */
export type Tx = Parameters<Parameters<PrismaService['$transaction']>[0]>[0];
