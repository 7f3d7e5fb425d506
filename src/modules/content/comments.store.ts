import { Injectable } from '@nestjs/common';
import { PrismaService, Tx } from '../../prisma/prisma.service';
import type { CommentDto } from './dto/comment.dto';
import { ISO } from '../../prisma/iso-text';
import type { ChangeStatement } from '../events/outbox-events.store';
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

  /**
   * The INSERT of one comment under the parent that `parentRow` selects and locks (its store's
   * counterRow: $1 community, $2 parent id), returning it as the API answers it: no row when the
   * parent is not there. The change of a statement that also appends its event
   * (OutboxService.recordWithChange). The lock is the one the comment counter's trigger takes on the
   * parent, taken first; it keeps the parent until the statement commits, so a concurrent delete of
   * it cannot leave the comment orphaned (the delete waits, and its trigger then deletes the comment).
   */
  insertion(
    ref: ParentRef,
    authorId: string,
    content: string,
    parentRow: string,
  ): ChangeStatement<CommentDto> {
    return {
      name: `comments-insert:${ref.parentType}`,
      text: `INSERT INTO comments (id, community_id, parent_type, parent_id, author_id, content)
             SELECT gen_random_uuid(), $1::uuid, $3::"ParentType", parent.id, $4::uuid, $5
               FROM (${parentRow}) AS parent
             RETURNING id AS "id", community_id AS "communityId", parent_type AS "parentType",
                       parent_id AS "parentId", author_id AS "authorId", content AS "content",
                       ${ISO('created_at')} AS "createdAt"`,
      values: [ref.communityId, ref.parentId, ref.parentType, authorId, content],
    };
  }

  /** Set-based insert of many comments (the demo seed). */
  async createMany(rows: (ParentRef & { authorId: string; content: string })[], tx: Tx = this.prisma) {
    await tx.comment.createMany({ data: rows });
  }
}
