import { Module } from '@nestjs/common';
import { MembershipsModule } from '../members/memberships.module';
import { AdminController } from './admin.controller';
import { AdminService } from './admin.service';
import { ApiKeysService } from './api-keys.service';
import { CommunitiesService } from './communities.service';

@Module({
  imports: [MembershipsModule],
  controllers: [AdminController],
  providers: [AdminService, ApiKeysService, CommunitiesService],
  exports: [ApiKeysService, CommunitiesService],
})
export class AdminModule {}
