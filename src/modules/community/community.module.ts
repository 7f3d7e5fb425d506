import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { CommunityController } from './community.controller';
import { CommunitiesStoreModule } from './communities.store';
import { CommunityService } from './community.service';
import { DnsTxtLookup } from './domain-challenge';

/** The community as its members see it: details, settings, branding, custom-domain verification. */
@Module({
  imports: [CommunitiesStoreModule, EventsModule, TenancyModule],
  controllers: [CommunityController],
  providers: [CommunityService, DnsTxtLookup],
  exports: [CommunityService],
})
export class CommunityModule {}
