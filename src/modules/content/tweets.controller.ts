import { Body, Controller, Delete, Get, HttpStatus, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AllowApiKey, RequireFeature, RequirePermission } from '../../common/decorators/auth.decorators';
import { CurrentActor, CurrentTenant } from '../../common/decorators/request.decorators';
import { ApiEndpoint } from '../../common/http/api-docs';
import type { Actor, TenantContext } from '../../common/http/request-context';
import { PageQueryDto } from '../../common/pagination/page-query.dto';
import { IdParamDto } from '../../common/http/id-param.dto';
import { DeletedTweetDto, TweetContentDto, TweetDto } from './dto/tweet.dto';
import { TweetsService } from './tweets.service';

@ApiTags('tweets')
@Controller('sdk/tweets')
@AllowApiKey()
@RequireFeature('content')
export class TweetsController {
  constructor(private readonly tweets: TweetsService) {}

  @Get()
  @ApiEndpoint({
    summary: 'List tweets, newest first (ties by id); total is exact',
    auth: 'jwt-or-api-key',
    response: TweetDto,
    paged: true,
    errors: [403],
  })
  list(@Query() query: PageQueryDto, @CurrentTenant() tenant: TenantContext) {
    return this.tweets.list(tenant.communityId, query);
  }

  @Post()
  @RequirePermission('CONTENT_CREATE')
  @ApiEndpoint({
    summary: 'Post a tweet as the caller (an API key posts as the member who created it)',
    description:
      'With allowMemberPosts off, only members with CONTENT_MODERATE may post. Emits tweet.created.',
    auth: 'jwt-or-api-key',
    response: TweetDto,
    status: HttpStatus.CREATED,
    errors: [403],
  })
  create(@Body() dto: TweetContentDto, @CurrentTenant() tenant: TenantContext, @CurrentActor() actor: Actor) {
    return this.tweets.create(tenant, actor, dto.content);
  }

  @Patch(':id')
  @ApiEndpoint({
    summary: "Edit a tweet's content: its author, or CONTENT_MODERATE",
    description: 'Emits tweet.updated.',
    auth: 'jwt-or-api-key',
    response: TweetDto,
    errors: [403, 404],
  })
  update(
    @Param() params: IdParamDto,
    @Body() dto: TweetContentDto,
    @CurrentTenant() tenant: TenantContext,
    @CurrentActor() actor: Actor,
  ) {
    return this.tweets.update(tenant, actor, params.id, dto.content);
  }

  @Delete(':id')
  @ApiEndpoint({
    summary: 'Delete a tweet with its comments and likes: its author, or CONTENT_MODERATE',
    description: 'Emits tweet.deleted.',
    auth: 'jwt-or-api-key',
    response: DeletedTweetDto,
    errors: [403, 404],
  })
  remove(@Param() params: IdParamDto, @CurrentTenant() tenant: TenantContext, @CurrentActor() actor: Actor) {
    return this.tweets.remove(tenant, actor, params.id);
  }
}
