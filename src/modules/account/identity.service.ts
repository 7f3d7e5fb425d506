import { Injectable } from '@nestjs/common';
import { Errors, INVALID_TOKEN_MESSAGE } from '../../common/errors/app-error';
import type { Actor } from '../../common/http/request-context';
import { UsersStore } from '../auth/users.store';
import type { IdentityDto } from './dto/responses.dto';

@Injectable()
export class IdentityService {
  constructor(private readonly users: UsersStore) {}

  /**
   * The user with their memberships (only the key's community for an API key), oldest first, and the
   * calling key, if any, in one statement (UsersStore.findWithMemberships).
   */
  async identity(actor: Actor): Promise<IdentityDto> {
    const user = await this.users.findWithMemberships(
      actor.userId,
      actor.apiKey?.communityId ?? null,
      actor.apiKey?.id ?? null,
    );
    if (!user) throw Errors.unauthorized(INVALID_TOKEN_MESSAGE);
    const { apiKey } = user;
    return {
      type: actor.kind,
      user: { id: user.id, email: user.email, name: user.name, isPlatformAdmin: user.isPlatformAdmin },
      communityId: actor.defaultCommunityId,
      ...(apiKey ? { apiKey } : {}),
      memberships: user.memberships,
    };
  }
}
