import { Module } from '@nestjs/common';
import { AdminController } from './admin.controller';
import { AdminService } from './admin.service';
import { ApiKeysService } from './api-keys.service';
import { CommunitiesService } from './communities.service';

@Module({
  controllers: [AdminController],
  providers: [AdminService, ApiKeysService, CommunitiesService],
  exports: [ApiKeysService, CommunitiesService],
})
export class AdminModule {}
