import { Injectable, Logger } from '@nestjs/common';
import { PrismaService } from '../../../prisma/prisma.service';

/** Relayed outbox rows are kept this long (for inspection and manual replay), then deleted. */
export const OUTBOX_RETENTION_DAYS = 7;
const PRUNE_EVERY_MS = 10 * 60_000;
const PRUNE_CHUNK = 5_000;

/**
 * Keeps the outbox from growing without bound. Deletes in chunks walking the primary key from the
 * oldest id (relayed rows are the oldest ones), so no index on relayed_at is needed and no single
 * statement holds locks for long. Several workers pruning at once is harmless.
 */
@Injectable()
export class OutboxRetention {
  private readonly logger = new Logger(OutboxRetention.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;

  constructor(private readonly prisma: PrismaService) {}

  start(): void {
    this.timer ??= setInterval(() => void this.pruneSafely(), PRUNE_EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Deletes relayed rows older than the retention; returns how many. */
  async prune(retentionDays = OUTBOX_RETENTION_DAYS): Promise<number> {
    let deleted = 0;
    for (;;) {
      const chunk = await this.prisma.$executeRaw`
        DELETE FROM outbox_events WHERE id IN (
          SELECT id FROM outbox_events
          WHERE relayed_at < now() - ${retentionDays} * interval '1 day'
          ORDER BY id LIMIT ${PRUNE_CHUNK})`;
      deleted += chunk;
      if (chunk < PRUNE_CHUNK) return deleted;
    }
  }

  private async pruneSafely(): Promise<void> {
    if (this.running) return;
    this.running = this.prune().catch((err: Error) => {
      this.logger.warn(`outbox pruning failed, will retry: ${err.message}`);
      return 0;
    });
    await this.running;
    this.running = undefined;
  }
}
