import { Global, Module } from '@nestjs/common';
import { MembershipsService } from './memberships.service';

/** Membership writes shared by the CLI, the service routes and the members module. */
@Global()
@Module({ providers: [MembershipsService], exports: [MembershipsService] })
export class MembershipsModule {}
