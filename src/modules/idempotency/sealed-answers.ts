import { Injectable } from '@nestjs/common';
import {
  type ReencryptedBatch,
  type SealedSecret,
  SecretKeyRing,
  type SecretsUnderKey,
  standingOf,
} from '../../common/crypto/secret-cipher';
import { AppConfig } from '../../config/app-config';
import { PrismaService } from '../../prisma/prisma.service';
import { IdempotencyKeysStore, type LockedBody } from './idempotency-keys.store';

/** The kept answers against the key ring: how many each key sealed, and how many are still in clear. */
export interface AnswersUnderKeys {
  byKey: SecretsUnderKey[];
  /** kept before answers were sealed (secrets:reencrypt seals them) */
  inClear: number;
}

/** A re-encryption batch of answers, and the id to go on after (null: none was left). */
export interface ReencryptedAnswers extends ReencryptedBatch {
  last: string | null;
}

/**
 * The bodies of the answers kept under Idempotency-Keys, sealed at rest by the key ring of the webhook
 * secrets (docs/security.md#secrets-at-rest): an answer may carry a secret shown only once (a webhook
 * endpoint's signing secret, a new API key, a portal link's token, an embed session's token), so every
 * body is sealed, whatever its route, rather than a list of routes someone must keep complete.
 * AES-256-GCM of a body costs microseconds beside the request; the body is opened only for a replay.
 */
@Injectable()
export class SealedAnswers {
  private readonly ring: SecretKeyRing;

  constructor(
    private readonly prisma: PrismaService,
    private readonly store: IdempotencyKeysStore,
    config: AppConfig,
  ) {
    this.ring = new SecretKeyRing(config.webhookEncryptionKeys);
  }

  /** The body as it is stored: sealed by the newest key. */
  seal(body: string): SealedSecret {
    return this.ring.encrypt(body);
  }

  /** The body as it was sent; throws if its key is not in the ring or the row was altered. */
  open(stored: Omit<LockedBody, 'id'>): string {
    if (stored.body) return this.ring.decrypt(stored.body);
    if (stored.plainBody !== null) return stored.plainBody;
    throw new Error('a kept answer has neither a sealed nor a plain body');
  }

  async countByKey(): Promise<AnswersUnderKeys> {
    const counts = await this.store.countByKey();
    const inClear = counts.get(null) ?? 0;
    counts.delete(null);
    return { byKey: standingOf(this.ring, counts as Map<string, number>), inClear };
  }

  /** Answers not sealed under the newest key: under older keys, keys not in the ring, or in clear. */
  async countNotUnderCurrentKey(): Promise<number> {
    const counts = await this.store.countByKey();
    counts.delete(this.ring.currentKeyId);
    return [...counts.values()].reduce((sum, count) => sum + count, 0);
  }

  /**
   * Seals up to `batchSize` answers that are not under the newest key (in clear, or under an older key
   * of the ring) under it, in one short transaction, walking the answers in id order after `after`.
   * Answers under a key not in the ring, or that would not open (altered), are left as they are and
   * named; rows another transaction holds are skipped (a later run takes them).
   */
  async reencryptBatch(batchSize: number, after = ''): Promise<ReencryptedAnswers> {
    return this.prisma.$transaction(async (tx) => {
      const rows = await this.store.lockNotSealedUnder(tx, this.ring.currentKeyId, after, batchSize);
      const result: ReencryptedAnswers = { moved: 0, failed: [], last: rows.at(-1)?.id ?? null };
      for (const row of rows) {
        let body: string;
        try {
          body = this.open(row);
        } catch (err) {
          result.failed.push({ id: row.id, reason: (err as Error).message });
          continue;
        }
        await this.store.reseal(tx, row.id, this.seal(body));
        result.moved += 1;
      }
      return result;
    });
  }
}
