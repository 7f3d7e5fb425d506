import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { UsersStoreModule } from '../auth/users.store';
import { MembershipsService } from './memberships.service';
import { MembershipsStoreModule } from './memberships.store';

/** Membership writes shared by the CLI, the service routes and the members module. */
@Module({
  imports: [EventsModule, MembershipsStoreModule, UsersStoreModule],
  providers: [MembershipsService],
  exports: [MembershipsService, MembershipsStoreModule],
})
export class MembershipsModule {}
