import { Module } from '@nestjs/common';
import { IdempotencyStorageModule } from './idempotency-storage.module';
import { IdempotencyService } from './idempotency.service';

/** Idempotent writes for the API (docs/idempotency.md); the guard is registered in app.module.ts. */
@Module({
  imports: [IdempotencyStorageModule],
  providers: [IdempotencyService],
  exports: [IdempotencyService],
})
export class IdempotencyModule {}
