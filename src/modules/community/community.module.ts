import { Module } from '@nestjs/common';
import { CommunityController } from './community.controller';
import { CommunityService } from './community.service';
import { DnsTxtLookup } from './domain-challenge';

/** The community as its members see it: details, settings, branding, custom-domain verification. */
@Module({
  controllers: [CommunityController],
  providers: [CommunityService, DnsTxtLookup],
  exports: [CommunityService],
})
export class CommunityModule {}
