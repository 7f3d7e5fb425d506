import { Module } from '@nestjs/common';
import { MembershipsModule } from '../members/memberships.module';
import { AccountController } from './account.controller';
import { IdentityService } from './identity.service';
import { ApiKeysService } from './api-keys.service';
import { CommunitiesService } from './communities.service';

@Module({
  imports: [MembershipsModule],
  controllers: [AccountController],
  providers: [IdentityService, ApiKeysService, CommunitiesService],
  exports: [ApiKeysService, CommunitiesService],
})
export class AccountModule {}
