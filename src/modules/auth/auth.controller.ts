import { Body, Controller, Post, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AllowPortalSession, Public } from '../../common/decorators/auth.decorators';
import { RateLimit } from '../../common/decorators/rate-limit.decorator';
import { CurrentActor } from '../../common/decorators/request.decorators';
import { Errors, INVALID_TOKEN_MESSAGE } from '../../common/errors/app-error';
import { ApiEndpoint } from '../../common/http/api-docs';
import type { Actor, AppRequest } from '../../common/http/request-context';
import { AuthService } from './auth.service';
import { LoginDto, RefreshTokenDto } from './dto/login.dto';
import { LogoutAllDto, LogoutDto, TokenPairDto } from './dto/token-pair.dto';
import { SessionsService } from './sessions.service';
import { TokenService } from './token.service';

@ApiTags('auth')
@Controller('auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly tokens: TokenService,
    private readonly sessions: SessionsService,
  ) {}

  @Post('login')
  @Public()
  @RateLimit('login')
  @ApiEndpoint({
    summary: 'Log in with e-mail and password',
    auth: 'public',
    response: TokenPairDto,
    errors: [401, 403, 503],
  })
  login(@Body() dto: LoginDto, @Req() request: AppRequest) {
    return this.auth.login(dto, request);
  }

  @Post('refresh')
  @RateLimit('refresh')
  @ApiEndpoint({
    summary: 'Rotate a still-valid access token (Bearer) into a new token pair',
    description:
      'Consumes the access token together with the refresh token issued with it: a second call with the ' +
      'same access token is 401 and, like the re-use of a refresh token, revokes the session.',
    auth: 'jwt',
    response: TokenPairDto,
  })
  refresh(@Req() request: AppRequest) {
    const header = request.headers.authorization ?? '';
    const claims = this.tokens.verifyAccessToken(header.replace(/^Bearer\s+/i, ''));
    if (!claims) throw Errors.unauthorized(INVALID_TOKEN_MESSAGE);
    return this.tokens.refreshFromAccessToken(claims);
  }

  @Post('logout')
  @AllowPortalSession()
  @ApiEndpoint({
    summary: "Log out: revoke the Bearer token's session",
    description:
      'With a login token: revokes its refresh family, i.e. its refresh tokens and every access token of the ' +
      'session. With a webhook-portal session token: ends that portal session. A later logout, refresh or any ' +
      'other call with them is 401, on every API instance within a second. Other sessions of the same user ' +
      'are untouched (POST /api/auth/logout-all ends them all).',
    auth: 'jwt',
    response: LogoutDto,
  })
  async logout(@CurrentActor() actor: Actor): Promise<LogoutDto> {
    await this.sessions.logout(actor);
    return { loggedOut: true };
  }

  @Post('logout-all')
  @ApiEndpoint({
    summary: "Log out everywhere: end every session of the Bearer token's user",
    description:
      'Extension. Revokes every login session (refresh family) of the caller and every webhook-portal session ' +
      'opened by their portal links; all their tokens are 401 on every API instance within a second. Needs a ' +
      "login token (a portal session cannot end its user's other sessions).",
    auth: 'jwt',
    response: LogoutAllDto,
  })
  async logoutAll(@CurrentActor() actor: Actor): Promise<LogoutAllDto> {
    return { loggedOut: true, sessionsEnded: await this.sessions.logoutEverywhere(actor) };
  }

  @Post('refresh-token')
  @Public()
  @RateLimit('refresh-token')
  @ApiEndpoint({
    summary: 'Exchange a refresh token (single use) for a new token pair; no Authorization header',
    auth: 'public',
    response: TokenPairDto,
    errors: [401],
  })
  refreshToken(@Body() dto: RefreshTokenDto) {
    return this.tokens.refreshFromRefreshToken(dto.refreshToken);
  }
}
