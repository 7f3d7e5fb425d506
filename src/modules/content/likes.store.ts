import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { PrismaService, Tx } from '../../prisma/prisma.service';
import type { ParentRef } from './parent-ref';

/** The one owner of `likes`' queries: one like per member per item (unique key). */
@Injectable()
export class LikesStore {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * The member's like of the item and whether this call made it. ON CONFLICT DO NOTHING makes two
   * concurrent likes of one member settle on one row without an error.
   */
  async insertOrFind(
    tx: Tx,
    ref: ParentRef,
    userId: string,
  ): Promise<{ created: boolean; id: string; createdAt: Date }> {
    const inserted = await tx.$queryRaw<{ id: string; createdAt: Date }[]>`
      INSERT INTO likes (id, community_id, parent_type, parent_id, user_id)
      VALUES (${randomUUID()}::uuid, ${ref.communityId}::uuid, ${ref.parentType}::"ParentType",
              ${ref.parentId}::uuid, ${userId}::uuid)
      ON CONFLICT (community_id, parent_type, parent_id, user_id) DO NOTHING
      RETURNING id, created_at AS "createdAt"`;
    if (inserted[0]) return { created: true, ...inserted[0] };
    const row = await tx.like.findUniqueOrThrow({
      where: { communityId_parentType_parentId_userId: { ...ref, userId } },
      select: { id: true, createdAt: true },
    });
    return { created: false, ...row };
  }

  async delete(tx: Tx, ref: ParentRef, userId: string): Promise<void> {
    await tx.like.deleteMany({ where: { ...ref, userId } });
  }

  /** Set-based insert of many likes (the demo seed). */
  async createMany(rows: (ParentRef & { userId: string })[], tx: Tx = this.prisma): Promise<void> {
    await tx.like.createMany({ data: rows });
  }
}
