import { Module } from '@nestjs/common';
import { ApiKeysStoreModule } from '../auth/api-keys.store';
import { UsersStoreModule } from '../auth/users.store';
import { CommunitiesStoreModule } from '../community/communities.store';
import { MembershipsModule } from '../members/memberships.module';
import { AccountController } from './account.controller';
import { IdentityService } from './identity.service';
import { ApiKeysService } from './api-keys.service';
import { CommunitiesService } from './communities.service';

@Module({
  imports: [ApiKeysStoreModule, CommunitiesStoreModule, MembershipsModule, UsersStoreModule],
  controllers: [AccountController],
  providers: [IdentityService, ApiKeysService, CommunitiesService],
  exports: [ApiKeysService, CommunitiesService],
})
export class AccountModule {}
