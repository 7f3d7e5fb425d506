import { Injectable, Logger } from '@nestjs/common';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PrismaService } from '../../prisma/prisma.service';

/**
 * prisma/migrations beside src/ and dist/ alike (src/modules/health → repository root), and in the
 * image, which ships prisma/ for `migrate deploy`.
 */
export const MIGRATIONS_DIR = join(__dirname, '..', '..', '..', 'prisma', 'migrations');

/** Names of the migrations shipped with this build: each directory holding a migration.sql. */
export function shippedMigrations(dir = MIGRATIONS_DIR): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort();
}

/**
 * Which shipped migrations the database has not applied (per `_prisma_migrations`, as
 * `prisma migrate deploy` records them): an API on an older schema must not take traffic.
 */
@Injectable()
export class MigrationStatus {
  private readonly logger = new Logger(MigrationStatus.name);
  /** Read once: the files of a running build do not change. */
  private shipped?: string[];

  constructor(private readonly prisma: PrismaService) {}

  /** The names not applied, oldest first; throws when the database or the files cannot be read. */
  async pending(): Promise<string[]> {
    this.shipped ??= shippedMigrations();
    // to_regclass follows the connection's search_path, where migrate deploy created the table.
    const [table] = await this.prisma.$queryRaw<{ present: boolean }[]>`
      SELECT to_regclass('_prisma_migrations') IS NOT NULL AS present`;
    const applied = table?.present
      ? await this.prisma.$queryRaw<{ migration_name: string }[]>`
          SELECT migration_name FROM _prisma_migrations
          WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`
      : [];
    const done = new Set(applied.map((row) => row.migration_name));
    const missing = this.shipped.filter((name) => !done.has(name));
    if (missing.length > 0) this.logger.warn({ missing }, 'not ready: migrations not applied');
    return missing;
  }
}
