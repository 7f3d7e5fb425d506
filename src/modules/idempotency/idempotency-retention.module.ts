import { Module } from '@nestjs/common';
import { IdempotencyKeysStore } from './idempotency-keys.store';
import { IdempotencyRetention } from './idempotency-retention.service';

/** The worker's part of idempotent writes: pruning expired answers (worker.module.ts). */
@Module({ providers: [IdempotencyKeysStore, IdempotencyRetention], exports: [IdempotencyRetention] })
export class IdempotencyRetentionModule {}
