import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { CREDENTIAL_CHECK } from '../../common/http/credential-check';
import { AppConfig } from '../../config/app-config';
import { MembershipsStoreModule } from '../members/memberships.store';
import { TenancyModule } from '../tenancy/tenancy.module';
import { ApiKeysStoreModule } from './api-keys.store';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { CredentialsService } from './credentials.service';
import { LoginAttemptLimiter } from './login-attempt-limiter';
import { PasswordService } from './password.service';
import { PortalSessionsStore } from './portal-sessions.store';
import { RefreshTokensStore } from './refresh-tokens.store';
import { SessionRevocationsService } from './session-revocations.service';
import { SessionsService } from './sessions.service';
import { TokenService } from './token.service';
import { UsersService } from './users.service';
import { UsersStoreModule } from './users.store';

@Module({
  imports: [
    TenancyModule,
    UsersStoreModule,
    MembershipsStoreModule,
    ApiKeysStoreModule,
    JwtModule.registerAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        secret: config.jwtSecret,
        signOptions: { algorithm: 'HS256' },
        verifyOptions: { algorithms: ['HS256'] },
      }),
    }),
  ],
  controllers: [AuthController],
  providers: [
    AuthService,
    CredentialsService,
    { provide: CREDENTIAL_CHECK, useExisting: CredentialsService },
    LoginAttemptLimiter,
    PasswordService,
    PortalSessionsStore,
    RefreshTokensStore,
    SessionRevocationsService,
    SessionsService,
    TokenService,
    UsersService,
  ],
  exports: [
    CredentialsService,
    CREDENTIAL_CHECK,
    LoginAttemptLimiter,
    PasswordService,
    PortalSessionsStore,
    RefreshTokensStore,
    SessionRevocationsService,
    TokenService,
    UsersService,
    JwtModule,
  ],
})
export class AuthModule {}
