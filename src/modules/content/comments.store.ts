import { Injectable } from '@nestjs/common';
import { PrismaService, Tx } from '../../prisma/prisma.service';
import type { CommentDto } from './dto/comment.dto';
import type { ParentRef } from './parent-ref';

const COMMENT_SELECT = {
  id: true,
  communityId: true,
  parentType: true,
  parentId: true,
  authorId: true,
  content: true,
  createdAt: true,
} as const;

/** The one owner of `comments`' queries. */
@Injectable()
export class CommentsStore {
  constructor(private readonly prisma: PrismaService) {}

  /** Oldest first (a thread reads top-down), ties broken by id. */
  page(ref: ParentRef, page: { page: number; limit: number }): Promise<CommentDto[]> {
    return this.prisma.comment.findMany({
      where: { communityId: ref.communityId, parentType: ref.parentType, parentId: ref.parentId },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      skip: (page.page - 1) * page.limit,
      take: page.limit,
      select: COMMENT_SELECT,
    });
  }

  create(tx: Tx, ref: ParentRef, authorId: string, content: string): Promise<CommentDto> {
    return tx.comment.create({ data: { ...ref, authorId, content }, select: COMMENT_SELECT });
  }

  /** Set-based insert of many comments (the demo seed). */
  async createMany(rows: (ParentRef & { authorId: string; content: string })[], tx: Tx = this.prisma) {
    await tx.comment.createMany({ data: rows });
  }
}
