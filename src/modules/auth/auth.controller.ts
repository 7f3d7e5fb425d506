import { Body, Controller, Post, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Public } from '../../common/decorators/auth.decorators';
import { Errors, INVALID_TOKEN_MESSAGE } from '../../common/errors/app-error';
import { ApiEndpoint } from '../../common/http/api-docs';
import type { AppRequest } from '../../common/http/request-context';
import { AuthService } from './auth.service';
import { LimitAuthAttempts } from './login-attempt-limiter';
import { LoginDto, RefreshTokenDto } from './dto/login.dto';
import { LogoutDto, TokenPairDto } from './dto/token-pair.dto';
import { TokenService } from './token.service';

@ApiTags('auth')
@Controller('auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly tokens: TokenService,
  ) {}

  @Post('login')
  @Public()
  @LimitAuthAttempts('login')
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
  @LimitAuthAttempts('refresh')
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
  @ApiEndpoint({
    summary: "Log out: revoke the Bearer token's session",
    description:
      'Revokes the refresh family of the access token: its refresh tokens and every access token of the ' +
      'session (a later logout, refresh or any other call with them is 401, on every API instance within ' +
      'a second). Other sessions of the same user are untouched.',
    auth: 'jwt',
    response: LogoutDto,
  })
  async logout(@Req() request: AppRequest): Promise<LogoutDto> {
    // The guard accepted a Bearer token (API keys are refused here), so the actor has its session.
    const sessionId = request.actor?.sessionId;
    if (!sessionId) throw Errors.unauthorized(INVALID_TOKEN_MESSAGE);
    await this.tokens.revokeFamily(sessionId);
    return { loggedOut: true };
  }

  @Post('refresh-token')
  @Public()
  @LimitAuthAttempts('refresh-token')
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
