import { Injectable } from '@nestjs/common';
import { Errors } from '../../common/errors/app-error';
import type { AppRequest } from '../../common/http/request-context';
import { PrismaService } from '../../prisma/prisma.service';
import { TenancyService } from '../tenancy/tenancy.service';
import { LoginDto } from './dto/login.dto';
import { LoginAttemptLimiter } from './login-attempt-limiter';
import { PasswordService } from './password.service';
import { TokenPair, TokenService } from './token.service';
import { normaliseEmail } from '../../common/validation/email';

const BAD_LOGIN = 'Invalid email or password';

@Injectable()
export class AuthService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly passwords: PasswordService,
    private readonly tokens: TokenService,
    private readonly tenancy: TenancyService,
    private readonly loginAttempts: LoginAttemptLimiter,
  ) {}

  /**
   * One message for an unknown e-mail and a wrong password (no user enumeration), and one failure
   * budget per e-mail as typed, known or not, and client address (LoginAttemptLimiter). The token's
   * tenant: communityId of the body, else the order of docs/product-decisions.md#3-tenancy-roles-permissions-plans,
   * else the community joined first.
   */
  async login(dto: LoginDto, request: AppRequest): Promise<TokenPair> {
    // Before the lookup, for known and unknown e-mails alike: a refusal must not tell them apart.
    const attempt = await this.loginAttempts.reserveAccountFailure(dto.email, request.ip);
    const user = await this.prisma.user.findUnique({ where: { email: normaliseEmail(dto.email) } });
    const valid = await this.passwords.verify(user?.passwordHash ?? null, dto.password);
    if (!user || !valid) throw Errors.unauthorized(BAD_LOGIN);
    await attempt.succeeded();

    const firstJoined = await this.prisma.membership.findFirst({
      where: { userId: user.id },
      orderBy: [{ joinedAt: 'asc' }, { id: 'asc' }],
      select: { communityId: true },
    });
    const communityId = await this.tenancy.resolveCommunityId(request, firstJoined?.communityId ?? null);
    if (communityId && communityId !== firstJoined?.communityId && !user.isPlatformAdmin) {
      const member = await this.prisma.membership.findUnique({
        where: { communityId_userId: { communityId, userId: user.id } },
        select: { id: true },
      });
      if (!member) throw Errors.forbidden('You are not a member of this community');
    }
    return this.tokens.issueForLogin(user, communityId);
  }
}
