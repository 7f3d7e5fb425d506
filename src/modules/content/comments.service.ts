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

  /** The comment, its parent's lock and its comment.created event in one statement; 404 without the parent. */
  async create(ref: ParentRef, actor: Actor, content: string): Promise<CommentDto> {
    const parent = this.parents.counterRow(ref);
    const insertion = this.comments.insertion(ref, actor.userId, content, parent.sql);
    const comment = await this.outbox.recordWithChange(
      insertion,
      ref.communityId,
      'comment.created',
      'comment',
    );
    if (!comment) throw parent.notFound();
    return comment;
  }
}
