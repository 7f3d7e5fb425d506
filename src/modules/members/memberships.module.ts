import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { MembershipsService } from './memberships.service';

/** Membership writes shared by the CLI, the service routes and the members module. */
@Module({ imports: [EventsModule], providers: [MembershipsService], exports: [MembershipsService] })
export class MembershipsModule {}
