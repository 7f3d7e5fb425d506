import { Module } from '@nestjs/common';
import { ConfigModule } from '../config/config.module';
import { AccountModule } from '../modules/account/account.module';
import { CommunityModule } from '../modules/community/community.module';
import { AuthModule } from '../modules/auth/auth.module';
import { UsersStoreModule } from '../modules/auth/users.store';
import { CommunitiesStoreModule } from '../modules/community/communities.store';
import { ContentModule } from '../modules/content/content.module';
import { EventsModule } from '../modules/events/events.module';
import { IdempotencyStorageModule } from '../modules/idempotency/idempotency-storage.module';
import { MembershipsModule } from '../modules/members/memberships.module';
import { TenancyModule } from '../modules/tenancy/tenancy.module';
import { WebhooksCoreModule } from '../modules/webhooks/core/webhooks-core.module';
import { PortalLinksService } from '../modules/webhooks/portal/portal-links.service';
import { PortalLinksStore } from '../modules/webhooks/portal/portal-links.store';
import { PrismaModule } from '../prisma/prisma.module';

/**
 * What the CLI and the seed need: the same configuration and services as the API (users,
 * communities, memberships, API keys), without HTTP, Redis or logging.
 */
@Module({
  imports: [
    ConfigModule,
    PrismaModule,
    EventsModule,
    TenancyModule,
    AuthModule,
    MembershipsModule,
    AccountModule,
    CommunityModule,
    // the stores the demo seed writes its starting rows through, in its own transaction
    UsersStoreModule,
    CommunitiesStoreModule,
    ContentModule,
    // the demo's webhook endpoint and its signing secret (seed); secrets:reencrypt
    WebhooksCoreModule,
    // the answers kept under Idempotency-Keys, which secrets:reencrypt seals too
    IdempotencyStorageModule,
  ],
  // portal:link mints its link with the service of the API's route
  providers: [PortalLinksService, PortalLinksStore],
})
export class CliModule {}
