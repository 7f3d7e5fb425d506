import { Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { AccessGuards } from './common/guards';
import { AllExceptionsFilter } from './common/filters/all-exceptions.filter';
import { RequestIdInterceptor } from './common/http/request-id';
import { EnvelopeInterceptor } from './common/interceptors/envelope.interceptor';
import { createValidationPipe } from './common/pipes/validation.pipe';
import { ConfigModule } from './config/config.module';
import { LoggerModule } from './logging/logger.module';
import { MetricsModule } from './metrics/metrics.module';
import { AdminModule } from './modules/admin/admin.module';
import { AuthModule } from './modules/auth/auth.module';
import { AuthAttemptGuard } from './modules/auth/login-attempt-limiter';
import { CommunityModule } from './modules/community/community.module';
import { ContentModule } from './modules/content/content.module';
import { EventsModule } from './modules/events/events.module';
import { HealthModule } from './modules/health/health.module';
import { MembershipsModule } from './modules/members/memberships.module';
import { MembersModule } from './modules/members/members.module';
import { CustomizationModule } from './modules/customization/customization.module';
import { EmbedModule } from './modules/embed/embed.module';
import { TenancyModule } from './modules/tenancy/tenancy.module';
import { PrismaModule } from './prisma/prisma.module';
import { RedisModule } from './redis/redis.module';
import { WebhooksModule } from './modules/webhooks/webhooks.module';

/** The HTTP API. It never processes delivery jobs: the worker (worker.module.ts) does. */
@Module({
  imports: [
    ConfigModule,
    LoggerModule,
    MetricsModule.forProcess('api'),
    PrismaModule,
    RedisModule,
    EventsModule,
    TenancyModule,
    AuthModule,
    MembershipsModule,
    MembersModule,
    CustomizationModule,
    EmbedModule,
    HealthModule,
    AdminModule,
    CommunityModule,
    ContentModule,
    WebhooksModule,
  ],
  providers: [
    // First: the login/refresh per-address limit counts requests the access guards would refuse.
    { provide: APP_GUARD, useClass: AuthAttemptGuard },
    ...AccessGuards.map((guard) => ({ provide: APP_GUARD, useClass: guard })),
    { provide: APP_FILTER, useClass: AllExceptionsFilter },
    { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
    { provide: APP_INTERCEPTOR, useClass: RequestIdInterceptor },
    { provide: APP_PIPE, useFactory: createValidationPipe },
  ],
})
export class AppModule {}
