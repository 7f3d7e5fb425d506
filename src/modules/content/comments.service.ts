import { Injectable } from '@nestjs/common';
import type { Actor } from '../../common/http/request-context';
import { Page, toPage } from '../../common/pagination/page-query.dto';
import { PrismaService } from '../../prisma/prisma.service';
import { OutboxService } from '../events/outbox.service';
import { CommentsStore } from './comments.store';
import type { CommentDto } from './dto/comment.dto';
import { ParentLookupService, ParentRef } from './parent-lookup.service';

@Injectable()
export class CommentsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly comments: CommentsStore,
    private readonly parents: ParentLookupService,
    private readonly outbox: OutboxService,
  ) {}

  /** Oldest first (a thread reads top-down); `total` is the parent's trigger-kept commentCount. */
  async list(ref: ParentRef, page: { page: number; limit: number }): Promise<Page<CommentDto>> {
    const [{ commentCount }, items] = await Promise.all([
      this.parents.counts(this.prisma, ref),
      this.comments.page(ref, page),
    ]);
    return toPage(items, page, commentCount);
  }

  async create(ref: ParentRef, actor: Actor, content: string): Promise<CommentDto> {
    return this.prisma.$transaction(async (tx) => {
      await this.parents.lock(tx, ref);
      const comment = await this.comments.create(tx, ref, actor.userId, content);
      await this.outbox.record(tx, ref.communityId, 'comment.created', { comment });
      return comment;
    });
  }
}
