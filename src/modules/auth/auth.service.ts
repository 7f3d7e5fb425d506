import { Injectable } from '@nestjs/common';
import { Errors } from '../../common/errors/app-error';
import type { AppRequest } from '../../common/http/request-context';
import { MembershipsStore } from '../members/memberships.store';
import { TenancyService } from '../tenancy/tenancy.service';
import { LoginDto } from './dto/login.dto';
import { LoginAttemptLimiter } from './login-attempt-limiter';
import { PasswordService } from './password.service';
import { TokenPair, TokenService } from './token.service';
import { UsersStore } from './users.store';
import { normaliseEmail } from '../../common/validation/email';

const BAD_LOGIN = 'Invalid email or password';

@Injectable()
export class AuthService {
  constructor(
    private readonly users: UsersStore,
    private readonly memberships: MembershipsStore,
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
    const user = await this.users.findForLogin({ email: normaliseEmail(dto.email) });
    const valid = await this.passwords.verify(user?.passwordHash ?? null, dto.password);
    if (!user || !valid) throw Errors.unauthorized(BAD_LOGIN);
    await attempt.succeeded();
    // the password is known here and only here: a hash of older parameters becomes one of today's,
    // without ending any session (the password did not change)
    if (user.passwordHash && this.passwords.needsRehash(user.passwordHash))
      await this.users.setPasswordHash(user.id, await this.passwords.hash(dto.password));

    const firstJoined = await this.memberships.firstJoinedCommunityId(user.id);
    const communityId = await this.tenancy.resolveCommunityId(request, firstJoined);
    if (communityId && communityId !== firstJoined && !user.isPlatformAdmin) {
      const role = await this.memberships.findRole(communityId, user.id);
      if (!role) throw Errors.forbidden('You are not a member of this community');
    }
    return this.tokens.issueForLogin(user, communityId);
  }
}
