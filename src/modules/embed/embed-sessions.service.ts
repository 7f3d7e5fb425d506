import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { randomUUID } from 'node:crypto';
import { AppConfig } from '../../config/app-config';
import { PrismaService } from '../../prisma/prisma.service';
import { EmbedSessionsStore } from './embed-sessions.store';
import { OutboxService } from '../events/outbox.service';
import { CreateEmbedSessionDto, EMBED_TTL, EmbedSessionDto } from './dto/create-embed-session.dto';

/** Claims of an embed token. `typ: 'embed'` is what keeps it out of every other route. */
export interface EmbedClaims {
  typ: 'embed';
  sessionId: string;
  communityId: string;
  allowedOrigin: string | null;
  iat: number;
  exp: number;
}

/** Embed sessions: a stored row plus a short-lived JWT scoped to one community and to embed use. */
@Injectable()
export class EmbedSessionsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly sessions: EmbedSessionsStore,
    private readonly outbox: OutboxService,
    private readonly jwt: JwtService,
    private readonly config: AppConfig,
  ) {}

  create(communityId: string, createdById: string, dto: CreateEmbedSessionDto): Promise<EmbedSessionDto> {
    const id = randomUUID();
    const iat = Math.floor(Date.now() / 1000);
    const exp = iat + (dto.ttlSeconds ?? EMBED_TTL.default);
    const allowedOrigin = dto.allowedOrigin ?? null;
    return this.prisma.$transaction(async (tx) => {
      const session = await this.sessions.create(tx, {
        id,
        communityId,
        createdById,
        allowedOrigin,
        userRef: dto.userRef ?? null,
        expiresAt: new Date(exp * 1000),
      });
      const embedUrl = `${this.config.publicBaseUrl}/embed/${communityId}?session=${id}`;
      // The event describes the session; the token is a credential and never leaves this response.
      await this.outbox.record(tx, communityId, 'embed.session.created', {
        session: { ...session, createdById, embedUrl },
      });
      const claims: EmbedClaims = { typ: 'embed', sessionId: id, communityId, allowedOrigin, iat, exp };
      const token = this.jwt.sign(claims, { algorithm: 'HS256', jwtid: id });
      return { ...session, token, embedUrl };
    });
  }
}
