import { Injectable } from '@nestjs/common';
import { Errors } from '../../common/errors/app-error';
import type { Actor } from '../../common/http/request-context';
import { newestFirstList, newestFirstPage, responseColumns } from '../../common/pagination/newest-first-page';
import type { Page } from '../../common/pagination/page-query.dto';
import { PrismaService } from '../../prisma/prisma.service';
import type { CreateTaskDto, TaskDto } from './dto/task.dto';

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
