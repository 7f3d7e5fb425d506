import { Injectable } from '@nestjs/common';
import type { Actor } from '../../common/http/request-context';
import { PrismaService } from '../../prisma/prisma.service';
import { OutboxService } from '../events/outbox.service';
import type { LikeDto, UnlikeDto } from './dto/like.dto';
import { LikesStore } from './likes.store';
import { ParentLookupService, ParentRef } from './parent-lookup.service';

/** One like per member per item (unique key), so liking again is a no-op that answers the same like. */
@Injectable()
export class LikesService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly likes: LikesStore,
    private readonly parents: ParentLookupService,
    private readonly outbox: OutboxService,
  ) {}

  /**
   * Likes the item. `created` is false when the member had already liked it; then nothing changes
   * and no event is written; two concurrent likes of one member settle on one row without an error
   * (LikesStore.insertOrFind). The counter is the trigger's, read back in the transaction.
   */
  async like(ref: ParentRef, actor: Actor): Promise<{ created: boolean; like: LikeDto }> {
    return this.prisma.$transaction(async (tx) => {
      await this.parents.lock(tx, ref);
      const row = await this.likes.insertOrFind(tx, ref, actor.userId);
      const created = row.created;
      const { likeCount } = await this.parents.counts(tx, ref);
      const like: LikeDto = {
        id: row.id,
        parentType: ref.parentType,
        parentId: ref.parentId,
        userId: actor.userId,
        liked: true,
        likeCount,
        createdAt: row.createdAt,
      };
      if (created) await this.outbox.record(tx, ref.communityId, 'like.created', { like });
      return { created, like };
    });
  }

  /** Removes the member's like if there is one (idempotent). */
  async unlike(ref: ParentRef, actor: Actor): Promise<UnlikeDto> {
    return this.prisma.$transaction(async (tx) => {
      await this.parents.lock(tx, ref);
      await this.likes.delete(tx, ref, actor.userId);
      const { likeCount } = await this.parents.counts(tx, ref);
      return { parentType: ref.parentType, parentId: ref.parentId, liked: false as const, likeCount };
    });
  }
}
