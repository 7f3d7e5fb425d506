import { Module } from '@nestjs/common';
import { IdempotencyStorageModule } from './idempotency-storage.module';
import { IdempotencyRetention } from './idempotency-retention.service';

/** The worker's part of idempotent writes: pruning expired answers (worker.module.ts). */
@Module({
  imports: [IdempotencyStorageModule],
  providers: [IdempotencyRetention],
  exports: [IdempotencyRetention],
})
export class IdempotencyRetentionModule {}
