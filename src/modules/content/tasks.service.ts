import { Injectable } from '@nestjs/common';
import { Errors } from '../../common/errors/app-error';
import type { Actor } from '../../common/http/request-context';
import { Page, toPage } from '../../common/pagination/page-query.dto';
import { PrismaService } from '../../prisma/prisma.service';
import type { CreateTaskDto, TaskDto } from './dto/task.dto';
import { listTotal } from './list-total';

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

@Injectable()
export class TasksService {
  constructor(private readonly prisma: PrismaService) {}

  /** Newest first, ties broken by id. */
  async list(communityId: string, page: { page: number; limit: number }): Promise<Page<TaskDto>> {
    const [items, total] = await Promise.all([
      this.prisma.task.findMany({
        where: { communityId },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        skip: (page.page - 1) * page.limit,
        take: page.limit,
        select: TASK_SELECT,
      }),
      listTotal(this.prisma, communityId, 'tasks'),
    ]);
    return toPage(items, page, total);
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
