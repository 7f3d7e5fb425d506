import { Injectable } from '@nestjs/common';
import { PrismaService, Tx } from '../../../../prisma/prisma.service';
import type { SealedSecret, StoredSecret } from './secret-cipher';

/** A live secret as stored: sealed, with when it was made and when it stops signing. */
export interface StoredLiveSecret extends StoredSecret {
  createdAt: Date;
  expiresAt: Date | null;
}

/** A secret is live while it has no expiry or its expiry is still ahead. */
function liveAt(now: Date) {
  return { OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] };
}

/**
 * The one owner of `webhook_secrets`' queries. Rows hold secrets sealed by SecretKeyRing; sealing,
 * opening and the rotation's rules are WebhookSecretsService's. Every query names its endpoint's
 * community, except the re-encryption's, which walks every community.
 */
@Injectable()
export class WebhookSecretsStore {
  constructor(private readonly prisma: PrismaService) {}

  async create(
    tx: Tx,
    row: { communityId: string; endpointId: string; createdAt: Date } & SealedSecret,
  ): Promise<void> {
    await tx.webhookSecret.create({ data: row });
  }

  /** Expired secrets can never sign again: dropped so the table holds only what matters. */
  async deleteExpired(tx: Tx, communityId: string, endpointId: string, now: Date): Promise<void> {
    await tx.webhookSecret.deleteMany({ where: { communityId, endpointId, expiresAt: { lte: now } } });
  }

  /** When the endpoint's newest secret was made, or null without secrets. */
  async newestCreatedAt(tx: Tx, communityId: string, endpointId: string): Promise<Date | null> {
    const newest = await tx.webhookSecret.findFirst({
      where: { communityId, endpointId },
      orderBy: { createdAt: 'desc' },
      select: { createdAt: true },
    });
    return newest?.createdAt ?? null;
  }

  /** Gives every secret of the endpoint that has no expiry this one. */
  async expireOpenEnded(tx: Tx, communityId: string, endpointId: string, expiresAt: Date): Promise<void> {
    await tx.webhookSecret.updateMany({
      where: { communityId, endpointId, expiresAt: null },
      data: { expiresAt },
    });
  }

  /** The ids of the endpoint's live secrets, newest first. */
  async liveIds(tx: Tx, communityId: string, endpointId: string, now: Date): Promise<string[]> {
    const live = await tx.webhookSecret.findMany({
      where: { communityId, endpointId, ...liveAt(now) },
      orderBy: { createdAt: 'desc' },
      select: { id: true },
    });
    return live.map((secret) => secret.id);
  }

  /** Ends these secrets of the endpoint at `now`. */
  async expire(tx: Tx, communityId: string, endpointId: string, ids: string[], now: Date): Promise<void> {
    await tx.webhookSecret.updateMany({
      where: { communityId, endpointId, id: { in: ids } },
      data: { expiresAt: now },
    });
  }

  /** The endpoint's live secrets, sealed, newest first. */
  findLive(communityId: string, endpointId: string, now: Date): Promise<StoredLiveSecret[]> {
    return this.prisma.webhookSecret.findMany({
      where: { communityId, endpointId, ...liveAt(now) },
      orderBy: { createdAt: 'desc' },
      select: { keyId: true, iv: true, ciphertext: true, authTag: true, createdAt: true, expiresAt: true },
    });
  }

  /** How many secrets each encryption key sealed. */
  async countByKey(): Promise<Map<string, number>> {
    const groups = await this.prisma.webhookSecret.groupBy({ by: ['keyId'], _count: { _all: true } });
    return new Map(groups.map((g) => [g.keyId, g._count._all]));
  }

  countNotUnderKey(keyId: string): Promise<number> {
    return this.prisma.webhookSecret.count({ where: { keyId: { not: keyId } } });
  }

  /**
   * Locks up to `limit` secrets sealed under these keys (not those in `skip`) for the transaction
   * and reads them. Rows another transaction holds (a rotation in progress) are skipped rather than
   * waited for (SKIP LOCKED).
   */
  async lockSealedUnder(
    tx: Tx,
    keyIds: string[],
    skip: string[],
    limit: number,
  ): Promise<(StoredSecret & { id: string })[]> {
    const locked = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM webhook_secrets
       WHERE key_id = ANY(${keyIds}::text[]) AND NOT (id = ANY(${skip}::uuid[]))
       ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED`;
    if (locked.length === 0) return [];
    return tx.webhookSecret.findMany({
      where: { id: { in: locked.map((row) => row.id) } },
      select: { id: true, keyId: true, iv: true, ciphertext: true, authTag: true },
    });
  }

  /** Replaces the secret's sealed form (the same secret under another key). */
  async reseal(tx: Tx, id: string, sealed: SealedSecret): Promise<void> {
    await tx.webhookSecret.update({ where: { id }, data: sealed });
  }
}
