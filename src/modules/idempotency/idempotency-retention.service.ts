import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { IdempotencyKeysStore } from './idempotency-keys.store';

const PRUNE_EVERY_MS = 10 * 60_000;
/** Expired answers deleted by one statement: no statement holds its locks for long. */
export const IDEMPOTENCY_PRUNE_BATCH = 5_000;

/**
 * Deletes expired Idempotency-Key answers in batches, in the worker (as the outbox retention does):
 * a lookup reads only unexpired rows, so the deletion only bounds the table's size
 * (docs/operations.md#idempotency-keys). Then forgets the callers none of whose answers is left unexpired
 * (their count of answers, for IDEMPOTENCY_KEYS_PER_CALLER). Several workers pruning at once is harmless.
 */
@Injectable()
export class IdempotencyRetention implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(IdempotencyRetention.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;

  constructor(
    private readonly store: IdempotencyKeysStore,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer ??= setInterval(() => void this.pruneSafely(), PRUNE_EVERY_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Deletes every expired answer, then every idle caller, a batch at a time; returns how many answers. */
  async prune(batch = IDEMPOTENCY_PRUNE_BATCH): Promise<number> {
    const deleted = await inBatches(batch, (limit) => this.store.pruneExpired(limit));
    await inBatches(batch, (limit) => this.store.pruneIdleCallers(this.config.idempotencyKeyTtlMs, limit));
    return deleted;
  }

  private async pruneSafely(): Promise<void> {
    if (this.running) return;
    this.running = this.prune().catch((err: Error) => {
      this.logger.warn({ msg: 'idempotency key pruning failed, will retry', error: err.message });
      return 0;
    });
    await this.running;
    this.running = undefined;
  }
}

/** Runs `step` (deleting up to `batch` rows, answering how many) until it deletes fewer; returns the total. */
async function inBatches(batch: number, step: (limit: number) => Promise<number>): Promise<number> {
  let deleted = 0;
  for (;;) {
    const count = await step(batch);
    deleted += count;
    if (count < batch) return deleted;
  }
}
