import { Module } from '@nestjs/common';
import { MembersBulkService } from './members-bulk.service';
import { MembersController } from './members.controller';
import { MembersService } from './members.service';

/** /api/sdk/members: list, role changes, single and bulk upsert (MembershipsService is global). */
@Module({ controllers: [MembersController], providers: [MembersService, MembersBulkService] })
export class MembersModule {}
