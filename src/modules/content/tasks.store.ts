import type { JsonText } from '../../common/http/json-text';
import { Injectable } from '@nestjs/common';
import { newestFirstList, newestFirstPage, responseColumns } from '../../common/pagination/newest-first-page';
import type { Page } from '../../common/pagination/page-query.dto';
import type { TaskStatus } from '../../generated/prisma/enums';
import { PrismaService, Tx } from '../../prisma/prisma.service';
import type { TaskDto } from './dto/task.dto';
import type { ParentCounts } from './parent-ref';

const TASK_COLUMNS = responseColumns(
  [
    'id',
    'communityId',
    'title',
    'description',
    'status',
    'dueAt',
    'createdById',
    'likeCount',
    'commentCount',
    'createdAt',
    'updatedAt',
  ],
  { status: 'status::text' },
);
const TASK_SELECT = TASK_COLUMNS.select;
const TASK_LIST = newestFirstList('tasks', TASK_COLUMNS.sql);

export interface NewTask {
  communityId: string;
  createdById: string;
  title: string;
  description?: string;
  dueAt?: Date | null;
  status?: TaskStatus;
}

/** The one owner of `tasks`' queries; every one is scoped by the community. */
@Injectable()
export class TasksStore {
  constructor(private readonly prisma: PrismaService) {}

  /** Newest first, ties broken by id. */
  page(communityId: string, page: { page: number; limit: number }): Promise<JsonText<Page<TaskDto>>> {
    return newestFirstPage<TaskDto>(this.prisma, TASK_LIST, communityId, page);
  }

  find(communityId: string, id: string): Promise<TaskDto | null> {
    return this.prisma.task.findUnique({
      where: { communityId_id: { communityId, id } },
      select: TASK_SELECT,
    });
  }

  create(data: NewTask, tx: Tx = this.prisma): Promise<TaskDto> {
    return tx.task.create({ data, select: TASK_SELECT });
  }

  /** The task's trigger-kept counters, or null when it is not in this community. */
  async counts(db: PrismaService | Tx, communityId: string, id: string): Promise<ParentCounts | null> {
    const rows = await db.$queryRaw<ParentCounts[]>`
      SELECT like_count AS "likeCount", comment_count AS "commentCount"
        FROM tasks WHERE community_id = ${communityId}::uuid AND id = ${id}::uuid`;
    return rows[0] ?? null;
  }

  /**
   * The task and its like count as a subquery that locks it FOR NO KEY UPDATE ($1 its community, $2 its
   * id): the lock its counters' triggers take (a like or a comment bumps the task's row), taken first,
   * so that likes and unlikes of one task queue on it before they touch `likes` (no deadlock), each
   * reads the count the one before it left, and a concurrent delete waits (no orphan child). A weaker
   * lock (FOR KEY SHARE) would be upgraded by the trigger's update: two lock steps a child, and the
   * lockers of one busy row shared through a multixact.
   */
  readonly counterRow = `SELECT id, like_count FROM tasks WHERE community_id = $1::uuid AND id = $2::uuid FOR NO KEY UPDATE`;

  /** The lock of counterRow until the transaction ends (ParentLookupService.lockCounters); false when absent. */
  async lockCounters(tx: Tx, communityId: string, id: string): Promise<boolean> {
    const rows = await tx.$queryRawUnsafe<unknown[]>(this.counterRow, communityId, id);
    return rows.length > 0;
  }
}
