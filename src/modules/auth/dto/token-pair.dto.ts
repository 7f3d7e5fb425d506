import { ApiProperty } from '@nestjs/swagger';

export class TokenUserDto {
  id: string;
  email: string;
  name: string;
}

export class TokenPairDto {
  /** HS256 JWT carrying userId, email, role, tenantId, tenantSchema */
  accessToken: string;
  /** opaque, single use; send it to POST /api/auth/refresh-token */
  refreshToken: string;
  @ApiProperty({ enum: ['Bearer'] })
  tokenType: 'Bearer';
  /** lifetime of the access token in seconds (JWT_EXPIRES_IN) */
  expiresIn: number;
  user: TokenUserDto;
}

export class LogoutDto {
  /** always true: the session of the Bearer token (a login's refresh family, or a portal session) is revoked */
  @ApiProperty({ enum: [true] })
  loggedOut: true;
}

export class LogoutAllDto {
  /** always true: every session of the caller is revoked */
  @ApiProperty({ enum: [true] })
  loggedOut: true;
  /** how many sessions (logins and portal sessions) were still live and are now ended */
  sessionsEnded: number;
}
