import { Module } from '@nestjs/common';
import { EmbedSessionsService } from './embed-sessions.service';
import { EmbedController } from './embed.controller';

/** /api/embed: embed sessions (JwtService comes from the global AuthModule). */
@Module({ controllers: [EmbedController], providers: [EmbedSessionsService] })
export class EmbedModule {}
