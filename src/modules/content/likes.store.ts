import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ISO } from '../../prisma/iso-text';
import { PrismaService, Tx } from '../../prisma/prisma.service';
import type { ChangeStatement } from '../events/outbox-events.store';
import type { LikeDto } from './dto/like.dto';
import type { ParentRef } from './parent-ref';

/** The one owner of `likes`' queries: one like per member per item (unique key). */
@Injectable()
export class LikesStore {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * A new like of the member as one statement, answered as the API answers it, with the item's like
   * count after it: the parent row (`parentRow`, the stores' counterRow: $1 community, $2 id) is
   * locked for its counter first, so the count it reads is the one the like before left, and the
   * trigger adds this one. No row when the member had already liked the item, or the item is not there
   * (the caller tells the two apart with insertOrFind). The change of OutboxService.recordWithChange.
   */
  insertion(ref: ParentRef, userId: string, parentRow: string): ChangeStatement<LikeDto> {
    return {
      name: `likes-insert:${ref.parentType}`,
      ctes: `parent AS (${parentRow})`,
      text: `INSERT INTO likes (id, community_id, parent_type, parent_id, user_id)
             SELECT gen_random_uuid(), $1::uuid, $3::"ParentType", parent.id, $4::uuid FROM parent
             ON CONFLICT (community_id, parent_type, parent_id, user_id) DO NOTHING
             RETURNING id AS "id", parent_type AS "parentType", parent_id AS "parentId", user_id AS "userId",
                       true AS "liked", (SELECT like_count FROM parent) + 1 AS "likeCount",
                       ${ISO('created_at')} AS "createdAt"`,
      values: [ref.communityId, ref.parentId, ref.parentType, userId],
    };
  }

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
