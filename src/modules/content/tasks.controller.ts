import { Body, Controller, Get, HttpStatus, Param, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AllowApiKey, RequireFeature, RequirePermission } from '../../common/decorators/auth.decorators';
import { CurrentActor, CurrentTenant } from '../../common/decorators/request.decorators';
import { ApiEndpoint } from '../../common/http/api-docs';
import type { Actor, TenantContext } from '../../common/http/request-context';
import { PageQueryDto } from '../../common/pagination/page-query.dto';
import { IdParamDto } from '../../common/http/id-param.dto';
import { CreateTaskDto, TaskDto } from './dto/task.dto';
import { TasksService } from './tasks.service';

@ApiTags('tasks')
@Controller('sdk/tasks')
@AllowApiKey()
@RequireFeature('content')
export class TasksController {
  constructor(private readonly tasks: TasksService) {}

  @Get()
  @ApiEndpoint({
    summary: 'List tasks, newest first (ties by id); total is exact',
    auth: 'jwt-or-api-key',
    response: TaskDto,
    paged: true,
    errors: [403],
  })
  list(@Query() query: PageQueryDto, @CurrentTenant() tenant: TenantContext) {
    return this.tasks.list(tenant.communityId, query);
  }

  @Get(':id')
  @ApiEndpoint({
    communityIdQuery: true,
    summary: 'Get a task',
    auth: 'jwt-or-api-key',
    response: TaskDto,
    errors: [403, 404],
  })
  get(@Param() params: IdParamDto, @CurrentTenant() tenant: TenantContext) {
    return this.tasks.get(tenant.communityId, params.id);
  }

  @Post()
  @RequirePermission('CONTENT_MODERATE')
  @ApiEndpoint({
    summary: 'Create a task (extension)',
    auth: 'jwt-or-api-key',
    response: TaskDto,
    status: HttpStatus.CREATED,
    errors: [403],
  })
  create(@Body() dto: CreateTaskDto, @CurrentTenant() tenant: TenantContext, @CurrentActor() actor: Actor) {
    return this.tasks.create(tenant.communityId, actor, dto);
  }
}
