import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { PrismaService } from '../../prisma/prisma.service';

/**
 * The one owner of `portal_sessions`' queries: the sessions webhook-portal links open, each a row
 * that logout (or a password change) revokes. SessionRevocationsService holds the revocation cache.
 */
@Injectable()
export class PortalSessionsStore {
  constructor(private readonly prisma: PrismaService) {}

  /** Records the session; answers its id. */
  async create(session: {
    userId: string;
    communityId: string;
    linkId: string;
    expiresAt: Date;
  }): Promise<string> {
    const { id } = await this.prisma.portalSession.create({
      data: { id: randomUUID(), ...session },
      select: { id: true },
    });
    return id;
  }

  /** When the session was revoked (null: live), or undefined when it has no row. */
  async revokedAt(sessionId: string): Promise<Date | null | undefined> {
    const row = await this.prisma.portalSession.findUnique({
      where: { id: sessionId },
      select: { revokedAt: true },
    });
    return row ? row.revokedAt : undefined;
  }

  /** Revokes the session if live; answers whether it was. */
  async revoke(sessionId: string): Promise<boolean> {
    const { count } = await this.prisma.portalSession.updateMany({
      where: { id: sessionId, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    return count > 0;
  }

  /** Revokes every live session of the user; answers their ids. */
  async revokeAllOfUser(userId: string): Promise<string[]> {
    const rows = await this.prisma.$queryRaw<{ id: string }[]>`
      UPDATE portal_sessions SET revoked_at = now()
       WHERE user_id = ${userId}::uuid AND revoked_at IS NULL
   RETURNING id::text AS id`;
    return rows.map((row) => row.id);
  }
}
