import { Injectable } from '@nestjs/common';
import { Errors, INVALID_TOKEN_MESSAGE } from '../../common/errors/app-error';
import type { Actor } from '../../common/http/request-context';
import { PrismaService } from '../../prisma/prisma.service';
import { ApiKeysService } from './api-keys.service';
import type { IdentityDto } from './dto/responses.dto';

@Injectable()
export class IdentityService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly apiKeys: ApiKeysService,
  ) {}

  async identity(actor: Actor): Promise<IdentityDto> {
    const user = await this.prisma.user.findUnique({
      where: { id: actor.userId },
      select: {
        id: true,
        email: true,
        name: true,
        isPlatformAdmin: true,
        memberships: {
          where: actor.apiKey ? { communityId: actor.apiKey.communityId } : {},
          orderBy: { joinedAt: 'asc' },
          select: { communityId: true, role: true, community: { select: { slug: true, name: true } } },
        },
      },
    });
    if (!user) throw Errors.unauthorized(INVALID_TOKEN_MESSAGE);
    const apiKey = actor.apiKey ? await this.apiKeys.findForIdentity(actor.apiKey.id) : null;
    return {
      type: actor.kind,
      user: { id: user.id, email: user.email, name: user.name, isPlatformAdmin: user.isPlatformAdmin },
      communityId: actor.defaultCommunityId,
      ...(apiKey ? { apiKey } : {}),
      memberships: user.memberships.map((m) => ({
        communityId: m.communityId,
        slug: m.community.slug,
        name: m.community.name,
        role: m.role,
      })),
    };
  }
}
