import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { UsersStoreModule } from '../auth/users.store';
import { TenancyModule } from '../tenancy/tenancy.module';
import { MembersBulkService } from './members-bulk.service';
import { MembersController } from './members.controller';
import { MembersService } from './members.service';
import { MembershipsModule } from './memberships.module';

/** /api/sdk/members: list, role changes, single and bulk upsert. */
@Module({
  imports: [EventsModule, MembershipsModule, TenancyModule, UsersStoreModule],
  controllers: [MembersController],
  providers: [MembersService, MembersBulkService],
})
export class MembersApiModule {}
