import { Injectable } from '@nestjs/common';
import { Prisma } from '../../generated/prisma/client';
import type { ParentType } from '../../generated/prisma/enums';
import { Errors } from '../../common/errors/app-error';
import type { PrismaService, Tx } from '../../prisma/prisma.service';

/** Table and human name of each parent type; the only place a parent type becomes SQL. */
const PARENTS: Record<ParentType, { table: Prisma.Sql; name: string }> = {
  tweets: { table: Prisma.raw('tweets'), name: 'Tweet' },
  tasks: { table: Prisma.raw('tasks'), name: 'Task' },
};

export interface ParentRef {
  communityId: string;
  parentType: ParentType;
  parentId: string;
}

export interface ParentCounts {
  likeCount: number;
  commentCount: number;
}

/** Looks up the tweet or task that comments and likes hang off, always inside its community. */
@Injectable()
export class ParentLookupService {
  /** The parent's counters, or 404 when it is not in this community. */
  async counts(db: PrismaService | Tx, ref: ParentRef): Promise<ParentCounts> {
    const rows = await db.$queryRaw<ParentCounts[]>`
      SELECT like_count AS "likeCount", comment_count AS "commentCount"
        FROM ${PARENTS[ref.parentType].table}
       WHERE community_id = ${ref.communityId}::uuid AND id = ${ref.parentId}::uuid`;
    if (rows.length === 0) throw Errors.notFound(PARENTS[ref.parentType].name);
    return rows[0];
  }

  /**
   * Makes sure the parent exists and stays until the transaction ends, before a comment or like is
   * written: FOR KEY SHARE blocks a concurrent DELETE (so no orphan child survives the parent's
   * delete trigger) yet lets concurrent likers run the triggers' counter UPDATEs without deadlocking.
   */
  async lock(tx: Tx, ref: ParentRef): Promise<void> {
    const rows = await tx.$queryRaw<unknown[]>`
      SELECT 1 FROM ${PARENTS[ref.parentType].table}
       WHERE community_id = ${ref.communityId}::uuid AND id = ${ref.parentId}::uuid
         FOR KEY SHARE`;
    if (rows.length === 0) throw Errors.notFound(PARENTS[ref.parentType].name);
  }
}
