import { Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { FeatureGuard } from './common/guards/feature.guard';
import { KnownFieldsGuard } from './common/guards/known-fields.guard';
import { PermissionGuard } from './common/guards/permission.guard';
import { ReadYourWritesGuard } from './common/guards/read-your-writes.guard';
import { rateLimitGuard, RateLimitModule } from './common/guards/rate-limit.module';
import { AllExceptionsFilter } from './common/filters/all-exceptions.filter';
import { createValidationPipe } from './common/pipes/validation.pipe';
import { ConfigModule } from './config/config.module';
import { LoggerModule } from './logging/logger.module';
import { MetricsModule } from './metrics/metrics.module';
import { AccountModule } from './modules/account/account.module';
import { AuthGuard } from './modules/auth/auth.guard';
import { AuthModule } from './modules/auth/auth.module';
import { CommunityModule } from './modules/community/community.module';
import { ContentModule } from './modules/content/content.module';
import { EventsModule } from './modules/events/events.module';
import { HealthModule } from './modules/health/health.module';
import { IdempotencyGuard } from './modules/idempotency/idempotency.guard';
import { IdempotencyModule } from './modules/idempotency/idempotency.module';
import { MembershipsModule } from './modules/members/memberships.module';
import { MembersApiModule } from './modules/members/members-api.module';
import { CustomizationModule } from './modules/customization/customization.module';
import { EmbedModule } from './modules/embed/embed.module';
import { TenancyModule } from './modules/tenancy/tenancy.module';
import { TenantGuard } from './modules/tenancy/tenant.guard';
import { PrismaModule } from './prisma/prisma.module';
import { RedisModule } from './redis/redis.module';
import { WebhooksModule } from './modules/webhooks/webhooks.module';
import { TracingShutdown } from './tracing/tracing-shutdown';

/** The HTTP API. It never processes delivery jobs: the worker (worker.module.ts) does. */
@Module({
  imports: [
    ConfigModule,
    LoggerModule,
    MetricsModule.forProcess('api'),
    PrismaModule,
    RedisModule,
    RateLimitModule,
    EventsModule,
    TenancyModule,
    AuthModule,
    MembershipsModule,
    MembersApiModule,
    CustomizationModule,
    EmbedModule,
    HealthModule,
    AccountModule,
    CommunityModule,
    ContentModule,
    WebhooksModule,
    IdempotencyModule,
  ],
  providers: [
    TracingShutdown,
    // The global guards, in the order they run (the one place it is written). The rate-limit guard
    // stands in two places, each instance counting the limits of its phase (rate-limit.policies.ts):
    // first the per-address limits of login, refresh and the portal exchange, which must count the
    // requests the access guards would refuse; then who is calling, in which community, the plan, the
    // permission; then the routes' per-caller limits, so refused callers spend no tokens; last, unknown
    // fields where the route declares no DTO, as the pipe would refuse them; then an Idempotency-Key,
    // once every answer that is not stored has had its turn (docs/idempotency.md); last, whether the
    // caller's lag-tolerant reads must go to the primary (read-your-writes.guard.ts). No global
    // interceptor: each would cost every request an rxjs chain.
    rateLimitGuard('before-access'),
    ...[AuthGuard, TenantGuard, FeatureGuard, PermissionGuard].map((guard) => ({
      provide: APP_GUARD,
      useClass: guard,
    })),
    rateLimitGuard('after-access'),
    { provide: APP_GUARD, useClass: KnownFieldsGuard },
    { provide: APP_GUARD, useClass: IdempotencyGuard },
    { provide: APP_GUARD, useClass: ReadYourWritesGuard },
    { provide: APP_FILTER, useClass: AllExceptionsFilter },
    { provide: APP_PIPE, useFactory: createValidationPipe },
  ],
})
export class AppModule {}
