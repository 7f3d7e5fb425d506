import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { EventsModule } from '../events/events.module';
import { EmbedSessionsService } from './embed-sessions.service';
import { EmbedSessionsStore } from './embed-sessions.store';
import { EmbedController } from './embed.controller';

/** /api/embed: embed sessions (signed with AuthModule's JwtService). */
@Module({
  imports: [AuthModule, EventsModule],
  controllers: [EmbedController],
  providers: [EmbedSessionsService, EmbedSessionsStore],
})
export class EmbedModule {}
