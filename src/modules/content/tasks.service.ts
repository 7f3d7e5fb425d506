import type { JsonText } from '../../common/http/json-text';
import { Injectable } from '@nestjs/common';
import { Errors } from '../../common/errors/app-error';
import type { Actor } from '../../common/http/request-context';
import type { Page } from '../../common/pagination/page-query.dto';
import type { CreateTaskDto, TaskDto } from './dto/task.dto';
import { TasksStore } from './tasks.store';

@Injectable()
export class TasksService {
  constructor(private readonly tasks: TasksStore) {}

  /** Newest first, ties broken by id. */
  list(communityId: string, page: { page: number; limit: number }): Promise<JsonText<Page<TaskDto>>> {
    return this.tasks.page(communityId, page);
  }

  async get(communityId: string, id: string): Promise<TaskDto> {
    const task = await this.tasks.find(communityId, id);
    if (!task) throw Errors.notFound('Task');
    return task;
  }

  async create(communityId: string, actor: Actor, input: CreateTaskDto): Promise<TaskDto> {
    return this.tasks.create({
      communityId,
      createdById: actor.userId,
      title: input.title,
      description: input.description ?? '',
      dueAt: input.dueAt ? new Date(input.dueAt) : null,
    });
  }
}
