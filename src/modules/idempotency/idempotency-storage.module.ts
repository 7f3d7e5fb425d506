import { Module } from '@nestjs/common';
import { IdempotencyKeysStore } from './idempotency-keys.store';
import { SealedAnswers } from './sealed-answers';

/**
 * The kept answers of Idempotency-Keys and their sealing: the API keeps and replays them, the worker
 * prunes them, the CLI re-encrypts them (secrets:reencrypt).
 */
@Module({
  providers: [IdempotencyKeysStore, SealedAnswers],
  exports: [IdempotencyKeysStore, SealedAnswers],
})
export class IdempotencyStorageModule {}
