import { Injectable } from '@nestjs/common';
import { Errors, INVALID_TOKEN_MESSAGE } from '../../common/errors/app-error';
import type { Actor } from '../../common/http/request-context';
import { PrismaService } from '../../prisma/prisma.service';
import { ApiKeysService } from './api-keys.service';
import type { IdentityDto, MembershipSummaryDto } from './dto/responses.dto';

interface IdentityRow {
  id: string;
  email: string;
  name: string;
  isPlatformAdmin: boolean;
  memberships: MembershipSummaryDto[];
}

@Injectable()
export class IdentityService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly apiKeys: ApiKeysService,
  ) {}

  /**
   * The user with their memberships (only the key's community for an API key), oldest first, in ONE
   * named prepared statement (PrismaService.preparedQuery): `GET /admin/sdk/me` is called on every SDK start and by
   * health checks, and the ORM's nested read cost a round trip per relation. The key, if any, is read
   * beside it by its owner.
   */
  async identity(actor: Actor): Promise<IdentityDto> {
    const [rows, apiKey] = await Promise.all([
      this.prisma.preparedQuery<IdentityRow>(
        'identity',
        `
          SELECT u.id::text AS id, u.email, u.name, u.is_platform_admin AS "isPlatformAdmin",
                 coalesce((SELECT json_agg(json_build_object('communityId', m.community_id, 'slug', c.slug,
                                                             'name', c.name, 'role', m.role)
                                           ORDER BY m.joined_at)
                             FROM memberships m JOIN communities c ON c.id = m.community_id
                            WHERE m.user_id = u.id AND ($2::uuid IS NULL OR m.community_id = $2::uuid)),
                          '[]') AS memberships
            FROM users u WHERE u.id = $1::uuid`,
        [actor.userId, actor.apiKey?.communityId ?? null],
      ),
      actor.apiKey ? this.apiKeys.findForIdentity(actor.apiKey.id) : null,
    ]);
    const user = rows.rows[0];
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
