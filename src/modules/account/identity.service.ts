import { Injectable } from '@nestjs/common';
import { Errors, INVALID_TOKEN_MESSAGE } from '../../common/errors/app-error';
import type { Actor } from '../../common/http/request-context';
import { UsersStore } from '../auth/users.store';
import { ApiKeysService } from './api-keys.service';
import type { IdentityDto } from './dto/responses.dto';

@Injectable()
export class IdentityService {
  constructor(
    private readonly users: UsersStore,
    private readonly apiKeys: ApiKeysService,
  ) {}

  /**
   * The user with their memberships (only the key's community for an API key), oldest first, in one
   * statement (UsersStore.findWithMemberships); the key, if any, is read beside it by its owner.
   */
  async identity(actor: Actor): Promise<IdentityDto> {
    const [user, apiKey] = await Promise.all([
      this.users.findWithMemberships(actor.userId, actor.apiKey?.communityId ?? null),
      actor.apiKey ? this.apiKeys.findForIdentity(actor.apiKey.id) : null,
    ]);
    if (!user) throw Errors.unauthorized(INVALID_TOKEN_MESSAGE);
    return {
      type: actor.kind,
      user: { id: user.id, email: user.email, name: user.name, isPlatformAdmin: user.isPlatformAdmin },
      communityId: actor.defaultCommunityId,
      ...(apiKey ? { apiKey } : {}),
      memberships: user.memberships,
    };
  }
}
