import { Injectable } from '@nestjs/common';
import { PrismaService, Tx } from '../../../../prisma/prisma.service';
import type { SealedSecret, StoredSecret } from '../../../../common/crypto/secret-cipher';

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

  /**
   * The live secrets of many endpoints in one statement (the worker's cache reads each endpoint's
   * once a second, and a wide fan-out reaches a thousand endpoints at once): for each key, its
   * endpoint's live secrets at its own `now`, sealed, newest first.
   */
  async findLiveMany(
    keys: readonly { communityId: string; endpointId: string; now: Date }[],
  ): Promise<StoredLiveSecret[][]> {
    const { rows } = await this.prisma.pool.query<StoredLiveSecret & { n: string }>(
      `SELECT w.n, s.key_id AS "keyId", s.iv, s.ciphertext, s.auth_tag AS "authTag",
              s.created_at AS "createdAt", s.expires_at AS "expiresAt"
       FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[]) WITH ORDINALITY AS w(community_id, endpoint_id, at, n)
       JOIN webhook_secrets s ON s.community_id = w.community_id AND s.endpoint_id = w.endpoint_id
        AND (s.expires_at IS NULL OR s.expires_at > w.at)
       ORDER BY w.n, s.created_at DESC`,
      [keys.map((k) => k.communityId), keys.map((k) => k.endpointId), keys.map((k) => k.now)],
    );
    const live: StoredLiveSecret[][] = keys.map(() => []);
    for (const { n, ...secret } of rows) live[Number(n) - 1].push(secret);
    return live;
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
