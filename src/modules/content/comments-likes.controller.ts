import { Body, Controller, Delete, Get, HttpStatus, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBody, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AllowApiKey, RequireFeature, RequirePermission } from '../../common/decorators/auth.decorators';
import { CurrentActor, CurrentTenant } from '../../common/decorators/request.decorators';
import { ApiEndpoint } from '../../common/http/api-docs';
import { replyCreatedOrExisting } from '../../common/http/created-or-existing';
import type { Actor, TenantContext } from '../../common/http/request-context';
import { TenantBodyDto } from '../../common/http/tenant-body.dto';
import { PageQueryDto } from '../../common/pagination/page-query.dto';
import { CommentsService } from './comments.service';
import { CommentDto, CreateCommentDto } from './dto/comment.dto';
import { LikeDto, UnlikeDto } from './dto/like.dto';
import { ParentParamsDto } from './dto/params.dto';
import { LikesService } from './likes.service';
import type { ParentRef } from './parent-lookup.service';

function parentRef(tenant: TenantContext, params: ParentParamsDto): ParentRef {
  return { communityId: tenant.communityId, parentType: params.parent, parentId: params.id };
}

/** Comments and likes of a tweet or a task: `/api/sdk/{tweets|tasks}/:id/...`. */
@ApiTags('comments and likes')
@Controller('sdk/:parent/:id')
@AllowApiKey()
@RequireFeature('content')
export class CommentsLikesController {
  constructor(
    private readonly comments: CommentsService,
    private readonly likes: LikesService,
  ) {}

  @Get('comments')
  @ApiEndpoint({
    summary: 'List the comments of a tweet or task, oldest first (ties by id)',
    auth: 'jwt-or-api-key',
    response: CommentDto,
    paged: true,
    errors: [403, 404],
  })
  listComments(
    @Param() params: ParentParamsDto,
    @Query() query: PageQueryDto,
    @CurrentTenant() tenant: TenantContext,
  ) {
    return this.comments.list(parentRef(tenant, params), query);
  }

  @Post('comments')
  @RequirePermission('CONTENT_CREATE')
  @ApiEndpoint({
    summary: 'Comment on a tweet or task',
    description: 'Emits comment.created.',
    auth: 'jwt-or-api-key',
    response: CommentDto,
    status: HttpStatus.CREATED,
    errors: [403, 404],
  })
  createComment(
    @Param() params: ParentParamsDto,
    @Body() dto: CreateCommentDto,
    @CurrentTenant() tenant: TenantContext,
    @CurrentActor() actor: Actor,
  ) {
    return this.comments.create(parentRef(tenant, params), actor, dto.content);
  }

  @Post('like')
  @RequirePermission('CONTENT_CREATE')
  @ApiBody({ type: TenantBodyDto, required: false })
  @ApiEndpoint({
    summary: 'Like a tweet or task (one like per member: 201 when new, 200 with the same like after)',
    description: 'Emits like.created for a new like only.',
    auth: 'jwt-or-api-key',
    response: LikeDto,
    createdOrExisting: 'Already liked by the caller: the same like, nothing changed',
    errors: [403, 404],
  })
  async like(
    @Param() params: ParentParamsDto,
    @CurrentTenant() tenant: TenantContext,
    @CurrentActor() actor: Actor,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const outcome = await this.likes.like(parentRef(tenant, params), actor);
    await replyCreatedOrExisting(reply, outcome, outcome.like);
  }

  @Delete('like')
  @RequirePermission('CONTENT_CREATE')
  @ApiEndpoint({
    communityIdQuery: true,
    summary: "Remove the caller's like (extension; idempotent)",
    auth: 'jwt-or-api-key',
    response: UnlikeDto,
    errors: [403, 404],
  })
  unlike(
    @Param() params: ParentParamsDto,
    @CurrentTenant() tenant: TenantContext,
    @CurrentActor() actor: Actor,
  ) {
    return this.likes.unlike(parentRef(tenant, params), actor);
  }
}
