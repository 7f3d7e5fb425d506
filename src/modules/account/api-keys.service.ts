import { Injectable, Optional } from '@nestjs/common';
import { DEFAULT_API_KEY_SCOPES } from '../../common/access/permissions';
import { Errors } from '../../common/errors/app-error';
import { InvalidationBus } from '../../redis/invalidation-bus';
import { generateApiKey } from '../auth/api-key-format';
import { ApiKeysStore, type ApiKeyRecord } from '../auth/api-keys.store';
import { API_KEY_INVALIDATION } from '../auth/credentials.service';
import type { ApiKeyDto, CreatedApiKeyDto } from './dto/responses.dto';

function toDto({ keyId, ...row }: ApiKeyRecord): ApiKeyDto {
  return { ...row, keyPrefix: `cpk_${keyId}` };
}

/** API keys of a community: the whole key is returned once, on create; only a hash is stored. */
@Injectable()
export class ApiKeysService {
  constructor(
    private readonly store: ApiKeysStore,
    @Optional() private readonly bus?: InvalidationBus,
  ) {}

  async create(
    communityId: string,
    createdById: string,
    name: string,
    scopes?: string[],
  ): Promise<CreatedApiKeyDto> {
    const generated = generateApiKey();
    const row = await this.store.create({
      communityId,
      createdById,
      name,
      keyId: generated.keyId,
      secretHash: generated.secretHash,
      scopes: scopes ?? [...DEFAULT_API_KEY_SCOPES],
    });
    return { ...toDto(row), key: generated.key };
  }

  async list(communityId: string): Promise<ApiKeyDto[]> {
    return (await this.store.list(communityId)).map(toDto);
  }

  async revoke(communityId: string, id: string): Promise<ApiKeyDto> {
    const existing = await this.store.findInCommunity(communityId, id);
    if (!existing) throw Errors.notFound('API key');
    const row = await this.store.markRevoked(communityId, id);
    // every API instance forgets the key it may hold in memory (CredentialsService)
    await this.bus?.publish(API_KEY_INVALIDATION, existing.keyId);
    return toDto(row);
  }
}
