import { Module } from '@nestjs/common';
import { CommunitiesStoreModule } from '../community/communities.store';
import { MembershipsStoreModule } from '../members/memberships.store';
import { TenancyService } from './tenancy.service';

@Module({
  imports: [CommunitiesStoreModule, MembershipsStoreModule],
  providers: [TenancyService],
  exports: [TenancyService],
})
export class TenancyModule {}
