import { Injectable } from '@nestjs/common';
import { Errors } from '../../common/errors/app-error';
import type { Actor } from '../../common/http/request-context';
import type { Page } from '../../common/pagination/page-query.dto';
import { PrismaService } from '../../prisma/prisma.service';
import type { CreateTaskDto, TaskDto } from './dto/task.dto';
import { ISO, newestFirstPage } from './newest-first-page';

const TASK_SELECT = {
  id: true,
  communityId: true,
  title: true,
  description: true,
  status: true,
  dueAt: true,
  createdById: true,
  likeCount: true,
  commentCount: true,
  createdAt: true,
  updatedAt: true,
} as const;

const TASK_LIST = {
  table: 'tasks',
  columns: `id, community_id AS "communityId", title, description, status::text AS status,
    ${ISO('due_at')} AS "dueAt", created_by_id AS "createdById", like_count AS "likeCount",
    comment_count AS "commentCount", ${ISO('created_at')} AS "createdAt", ${ISO('updated_at')} AS "updatedAt"`,
} as const;

@Injectable()
export class TasksService {
  constructor(private readonly prisma: PrismaService) {}

  /** Newest first, ties broken by id. */
  list(communityId: string, page: { page: number; limit: number }): Promise<Page<TaskDto>> {
    return newestFirstPage<TaskDto>(this.prisma, TASK_LIST, communityId, page);
  }

  async get(communityId: string, id: string): Promise<TaskDto> {
    const task = await this.prisma.task.findUnique({
      where: { communityId_id: { communityId, id } },
      select: TASK_SELECT,
    });
    if (!task) throw Errors.notFound('Task');
    return task;
  }

  async create(communityId: string, actor: Actor, input: CreateTaskDto): Promise<TaskDto> {
    return this.prisma.task.create({
      data: {
        communityId,
        createdById: actor.userId,
        title: input.title,
        description: input.description ?? '',
        dueAt: input.dueAt ? new Date(input.dueAt) : null,
      },
      select: TASK_SELECT,
    });
  }
}
