import { Module } from '@nestjs/common';
import { IdempotencyKeysStore } from './idempotency-keys.store';
import { IdempotencyService } from './idempotency.service';

/** Idempotent writes for the API (docs/idempotency.md); the guard is registered in app.module.ts. */
@Module({
  providers: [IdempotencyKeysStore, IdempotencyService],
  exports: [IdempotencyService],
})
export class IdempotencyModule {}
