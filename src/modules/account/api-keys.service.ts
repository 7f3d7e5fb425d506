import { Injectable, Optional } from '@nestjs/common';
import { DEFAULT_API_KEY_SCOPES } from '../../common/access/permissions';
import { Errors } from '../../common/errors/app-error';
import { ISO } from '../../prisma/iso-text';
import { PrismaService } from '../../prisma/prisma.service';
import { InvalidationBus } from '../../redis/invalidation-bus';
import { generateApiKey } from '../auth/api-key-format';
import { API_KEY_INVALIDATION } from '../auth/credentials.service';
import type { ApiKeyDto, CreatedApiKeyDto } from './dto/responses.dto';

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

type KeyRow = { keyId: string } & Omit<ApiKeyDto, 'keyPrefix'>;

function toDto({ keyId, ...row }: KeyRow): ApiKeyDto {
  return { ...row, keyPrefix: `cpk_${keyId}` };
}

/** API keys of a community: the whole key is returned once, on create; only a hash is stored. */
@Injectable()
export class ApiKeysService {
  constructor(
    private readonly prisma: PrismaService,
    @Optional() private readonly bus?: InvalidationBus,
  ) {}

  async create(
    communityId: string,
    createdById: string,
    name: string,
    scopes?: string[],
  ): Promise<CreatedApiKeyDto> {
    const generated = generateApiKey();
    const row = await this.prisma.apiKey.create({
      data: {
        communityId,
        createdById,
        name,
        keyId: generated.keyId,
        secretHash: generated.secretHash,
        scopes: scopes ?? [...DEFAULT_API_KEY_SCOPES],
      },
      select: KEY_SELECT,
    });
    return { ...toDto(row), key: generated.key };
  }

  async list(communityId: string): Promise<ApiKeyDto[]> {
    const rows = await this.prisma.apiKey.findMany({
      where: { communityId },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      select: KEY_SELECT,
    });
    return rows.map(toDto);
  }

  async revoke(communityId: string, id: string): Promise<ApiKeyDto> {
    const existing = await this.prisma.apiKey.findFirst({
      where: { communityId, id },
      select: { id: true, keyId: true },
    });
    if (!existing) throw Errors.notFound('API key');
    const row = await this.prisma.apiKey.update({
      where: { communityId_id: { communityId, id } },
      data: { revokedAt: new Date() },
      select: KEY_SELECT,
    });
    // every API instance forgets the key it may hold in memory (CredentialsService)
    await this.bus?.publish(API_KEY_INVALIDATION, existing.keyId);
    return toDto(row);
  }

  /** The calling key for `GET /admin/sdk/me`: a named prepared statement (a hot read), timestamps as ISO text. */
  async findForIdentity(id: string): Promise<ApiKeyDto | null> {
    const { rows } = await this.prisma.preparedQuery<ApiKeyDto>(
      'api-key-identity',
      `
        SELECT id::text AS id, name, community_id::text AS "communityId", 'cpk_' || key_id AS "keyPrefix", scopes,
               ${ISO('last_used_at')} AS "lastUsedAt", ${ISO('revoked_at')} AS "revokedAt",
               ${ISO('created_at')} AS "createdAt"
          FROM api_keys WHERE id = $1::uuid`,
      [id],
    );
    return rows[0] ?? null;
  }
}
