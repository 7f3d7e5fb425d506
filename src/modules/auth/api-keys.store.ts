import { Injectable, Module } from '@nestjs/common';
import { PrismaService } from '../../prisma/prisma.service';

const KEY_SELECT = {
  id: true,
  name: true,
  communityId: true,
  keyId: true,
  scopes: true,
  lastUsedAt: true,
  revokedAt: true,
  createdAt: true,
} as const;

/** A key as the account routes show it (before its keyId becomes the shown prefix). */
export interface ApiKeyRecord {
  id: string;
  name: string;
  communityId: string;
  keyId: string;
  scopes: string[];
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
}

/** A key as the identity route shows it: the prefix built in SQL, the timestamps ISO text. */
export type ApiKeyIdentityRow = Omit<ApiKeyRecord, 'keyId'> & { keyPrefix: string };

/** What the X-Api-Key check needs: the key's hash and state, and its creator (whom it acts as). */
export interface ApiKeyCredentialRow {
  id: string;
  communityId: string;
  secretHash: string;
  scopes: string[];
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  userId: string;
  email: string;
}

/**
 * The one owner of `api_keys`' queries: the account routes' key management and the X-Api-Key check.
 * Only the secret's hash is stored; the whole key exists once, in the create's response.
 */
@Injectable()
export class ApiKeysStore {
  constructor(private readonly prisma: PrismaService) {}

  create(data: {
    communityId: string;
    createdById: string;
    name: string;
    keyId: string;
    secretHash: string;
    scopes: string[];
  }): Promise<ApiKeyRecord> {
    return this.prisma.apiKey.create({ data, select: KEY_SELECT });
  }

  /** The community's keys, newest first. */
  list(communityId: string): Promise<ApiKeyRecord[]> {
    return this.prisma.apiKey.findMany({
      where: { communityId },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      select: KEY_SELECT,
    });
  }

  findInCommunity(communityId: string, id: string): Promise<{ id: string; keyId: string } | null> {
    return this.prisma.apiKey.findFirst({ where: { communityId, id }, select: { id: true, keyId: true } });
  }

  markRevoked(communityId: string, id: string): Promise<ApiKeyRecord> {
    return this.prisma.apiKey.update({
      where: { communityId_id: { communityId, id } },
      data: { revokedAt: new Date() },
      select: KEY_SELECT,
    });
  }

  /** The key and its creator: one indexed join (the creator's e-mail is read, never written, here). */
  async findForCredential(keyId: string): Promise<ApiKeyCredentialRow | undefined> {
    const [key] = await this.prisma.$queryRaw<ApiKeyCredentialRow[]>`
      SELECT k.id, k.community_id AS "communityId", k.secret_hash AS "secretHash", k.scopes,
             k.revoked_at AS "revokedAt", k.last_used_at AS "lastUsedAt", u.id AS "userId", u.email
        FROM api_keys k JOIN users u ON u.id = k.created_by_id
       WHERE k.key_id = ${keyId}`;
    return key;
  }

  /** Records a use at `at` unless one within `resolutionMs` before it is recorded already. */
  async touch(id: string, at: Date, resolutionMs: number): Promise<void> {
    await this.prisma.apiKey.updateMany({
      where: {
        id,
        OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(at.getTime() - resolutionMs) } }],
      },
      data: { lastUsedAt: at },
    });
  }
}

/** The store alone: the auth module checks keys, the account module manages them (no import cycle). */
@Module({ providers: [ApiKeysStore], exports: [ApiKeysStore] })
export class ApiKeysStoreModule {}
