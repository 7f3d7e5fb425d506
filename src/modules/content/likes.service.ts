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
   * Likes the item. A new like, its counter and its like.created event are one statement; when it
   * wrote nothing (the member had already liked the item, or the item is not there) the transaction
   * below answers: `created` false and the same like, nothing changed and no event, or 404. Two
   * concurrent likes of one member settle on one row without an error (LikesStore.insertOrFind).
   */
  async like(ref: ParentRef, actor: Actor): Promise<{ created: boolean; like: LikeDto }> {
    const parent = this.parents.counterRow(ref);
    const insertion = this.likes.insertion(ref, actor.userId, parent.sql);
    const like = await this.outbox.recordWithChange(insertion, ref.communityId, 'like.created', 'like');
    if (like) return { created: true, like };
    return this.likeOrFind(ref, actor);
  }

  /** The like in a transaction, reading the counter the trigger left: the answer when the one statement wrote nothing. */
  private async likeOrFind(ref: ParentRef, actor: Actor): Promise<{ created: boolean; like: LikeDto }> {
    return this.prisma.$transaction(async (tx) => {
      await this.parents.lockCounters(tx, ref);
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
      await this.parents.lockCounters(tx, ref);
      await this.likes.delete(tx, ref, actor.userId);
      const { likeCount } = await this.parents.counts(tx, ref);
      return { parentType: ref.parentType, parentId: ref.parentId, liked: false as const, likeCount };
    });
  }
}
