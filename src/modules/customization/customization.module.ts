import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { AdvertisementsController } from './advertisements.controller';
import { AdvertisementsService } from './advertisements.service';
import { AdvertisementsStore } from './advertisements.store';
import { SidebarController } from './sidebar.controller';
import { SidebarService } from './sidebar.service';
import { CustomizationsStore } from './customizations.store';

/** /api/sdk/customization: the sidebar and advertisements. */
@Module({
  imports: [EventsModule],
  controllers: [SidebarController, AdvertisementsController],
  providers: [SidebarService, AdvertisementsService, AdvertisementsStore, CustomizationsStore],
})
export class CustomizationModule {}
