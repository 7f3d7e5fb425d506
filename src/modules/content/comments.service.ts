import { Injectable } from '@nestjs/common';
import type { Actor } from '../../common/http/request-context';
import { Page, toPage } from '../../common/pagination/page-query.dto';
import { PrismaService } from '../../prisma/prisma.service';
import { OutboxService } from '../events/outbox.service';
import type { CommentDto } from './dto/comment.dto';
import { ParentLookupService, ParentRef } from './parent-lookup.service';

const COMMENT_SELECT = {
  id: true,
  communityId: true,
  parentType: true,
  parentId: true,
  authorId: true,
  content: true,
  createdAt: true,
} as const;

@Injectable()
export class CommentsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly parents: ParentLookupService,
    private readonly outbox: OutboxService,
  ) {}

  /** Oldest first (a thread reads top-down); `total` is the parent's trigger-kept commentCount. */
  async list(ref: ParentRef, page: { page: number; limit: number }): Promise<Page<CommentDto>> {
    const [{ commentCount }, items] = await Promise.all([
      this.parents.counts(this.prisma, ref),
      this.prisma.comment.findMany({
        where: { communityId: ref.communityId, parentType: ref.parentType, parentId: ref.parentId },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        skip: (page.page - 1) * page.limit,
        take: page.limit,
        select: COMMENT_SELECT,
      }),
    ]);
    return toPage(items, page, commentCount);
  }

  async create(ref: ParentRef, actor: Actor, content: string): Promise<CommentDto> {
    return this.prisma.$transaction(async (tx) => {
      await this.parents.lock(tx, ref);
      const comment = await tx.comment.create({
        data: { ...ref, authorId: actor.userId, content },
        select: COMMENT_SELECT,
      });
      await this.outbox.record(tx, ref.communityId, 'comment.created', { comment });
      return comment;
    });
  }
}
