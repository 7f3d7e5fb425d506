import { Injectable } from '@nestjs/common';
import type { Tx } from '../../prisma/prisma.service';

export interface NewEmbedSession {
  id: string;
  communityId: string;
  createdById: string;
  allowedOrigin: string | null;
  userRef: string | null;
  expiresAt: Date;
}

/** The one owner of `embed_sessions`' queries. */
@Injectable()
export class EmbedSessionsStore {
  create(tx: Tx, data: NewEmbedSession) {
    return tx.embedSession.create({
      data,
      select: { id: true, allowedOrigin: true, userRef: true, expiresAt: true, createdAt: true },
    });
  }
}
