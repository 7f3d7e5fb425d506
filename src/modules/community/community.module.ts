import { Module } from '@nestjs/common';
import { CommunityController } from './community.controller';
import { CommunityService } from './community.service';

/** The community as its members see it: details, settings, branding. */
@Module({ controllers: [CommunityController], providers: [CommunityService] })
export class CommunityModule {}
