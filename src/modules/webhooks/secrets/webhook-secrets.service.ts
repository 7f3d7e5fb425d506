import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Errors } from '../../../common/errors/app-error';
import { AppConfig } from '../../../config/app-config';
import { PrismaService, Tx } from '../../../prisma/prisma.service';
import { SecretCipher } from './secret-cipher';

const SECRET_PREFIX = 'whsec_';

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** A secret is live while it has no expiry or its expiry is still ahead. */
function liveAt(now: Date) {
  return { OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] };
}

/**
 * Signing secrets of webhook endpoints: minted, rotated with an overlap window, and read back
 * decrypted only for signing. Plaintext leaves this service only as the return value of create and
 * rotate (shown to the user once) and of liveSecrets (for the signer).
 */
@Injectable()
export class WebhookSecretsService {
  private readonly cipher: SecretCipher;

  constructor(
    private readonly prisma: PrismaService,
    private readonly config: AppConfig,
  ) {
    this.cipher = new SecretCipher(config.webhookEncryptionKey);
  }

  /** The first secret of a new endpoint, written in the caller's transaction. */
  async create(tx: Tx, communityId: string, endpointId: string, createdAt = new Date()): Promise<string> {
    const secret = generateWebhookSecret();
    await tx.webhookSecret.create({
      data: { communityId, endpointId, createdAt, ...this.cipher.encrypt(secret) },
    });
    return secret;
  }

  /**
   * Adds a new primary secret. Earlier secrets stay valid for WEBHOOK_SECRET_OVERLAP (a secret that
   * already expires keeps its earlier expiry); past WEBHOOK_MAX_LIVE_SECRETS the oldest are retired
   * at once. The endpoint row is locked so concurrent rotations apply one after the other.
   */
  async rotate(communityId: string, endpointId: string): Promise<string> {
    return this.prisma.$transaction(async (tx) => {
      const locked = await tx.$queryRaw<{ id: string }[]>`
        SELECT id FROM webhook_endpoints WHERE community_id = ${communityId}::uuid AND id = ${endpointId}::uuid FOR UPDATE`;
      if (locked.length === 0) throw Errors.notFound('Webhook endpoint');
      const now = new Date();
      const scope = { communityId, endpointId };
      // expired secrets can never sign again: drop them so the table holds only what matters
      await tx.webhookSecret.deleteMany({ where: { ...scope, expiresAt: { lte: now } } });
      const newest = await tx.webhookSecret.findFirst({ where: scope, orderBy: { createdAt: 'desc' } });
      await tx.webhookSecret.updateMany({
        where: { ...scope, expiresAt: null },
        data: { expiresAt: new Date(now.getTime() + this.config.webhookSecretOverlapMs) },
      });
      // strictly after the newest, so "newest first" never depends on clock ties
      const createdAt = newest && newest.createdAt >= now ? new Date(newest.createdAt.getTime() + 1) : now;
      const secret = await this.create(tx, communityId, endpointId, createdAt);
      const live = await tx.webhookSecret.findMany({
        where: { ...scope, ...liveAt(now) },
        orderBy: { createdAt: 'desc' },
        select: { id: true },
      });
      const retired = live.slice(this.config.WEBHOOK_MAX_LIVE_SECRETS).map((s) => s.id);
      if (retired.length > 0) {
        await tx.webhookSecret.updateMany({
          where: { ...scope, id: { in: retired } },
          data: { expiresAt: now },
        });
      }
      return secret;
    });
  }

  /** Every live secret of the endpoint, decrypted, newest (the primary) first. */
  async liveSecrets(communityId: string, endpointId: string, now = new Date()): Promise<string[]> {
    const rows = await this.prisma.webhookSecret.findMany({
      where: { communityId, endpointId, ...liveAt(now) },
      orderBy: { createdAt: 'desc' },
      select: { keyId: true, iv: true, ciphertext: true, authTag: true },
    });
    return rows.map((row) => this.cipher.decrypt(row));
  }
}
