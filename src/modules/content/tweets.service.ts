import { Injectable } from '@nestjs/common';
import { PostingRule } from '../../common/access/posting';
import { Errors } from '../../common/errors/app-error';
import type { Actor, TenantContext } from '../../common/http/request-context';
import { newestFirstList, newestFirstPage, responseColumns } from '../../common/pagination/newest-first-page';
import type { Page } from '../../common/pagination/page-query.dto';
import { PrismaService, Tx } from '../../prisma/prisma.service';
import { OutboxService } from '../events/outbox.service';
import type { TweetDto } from './dto/tweet.dto';

const TWEET_COLUMNS = responseColumns([
  'id',
  'communityId',
  'authorId',
  'content',
  'likeCount',
  'commentCount',
  'createdAt',
  'updatedAt',
]);
const TWEET_SELECT = TWEET_COLUMNS.select;
const TWEET_LIST = newestFirstList('tweets', TWEET_COLUMNS.sql);

@Injectable()
export class TweetsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly outbox: OutboxService,
    private readonly posting: PostingRule,
  ) {}

  /** Newest first; the id breaks ties so pages never overlap or skip (docs/product-decisions.md#4-lists). */
  list(communityId: string, page: { page: number; limit: number }): Promise<Page<TweetDto>> {
    return newestFirstPage<TweetDto>(this.prisma, TWEET_LIST, communityId, page);
  }

  async create(tenant: TenantContext, actor: Actor, content: string): Promise<TweetDto> {
    await this.posting.assertMayPost(tenant);
    return this.prisma.$transaction(async (tx) => {
      const tweet = await tx.tweet.create({
        data: { communityId: tenant.communityId, authorId: actor.userId, content },
        select: TWEET_SELECT,
      });
      await this.outbox.record(tx, tenant.communityId, 'tweet.created', { tweet });
      return tweet;
    });
  }

  async update(tenant: TenantContext, actor: Actor, id: string, content: string): Promise<TweetDto> {
    return this.prisma.$transaction(async (tx) => {
      await this.findEditable(tx, tenant, actor, id);
      const tweet = await tx.tweet.update({
        where: { communityId_id: { communityId: tenant.communityId, id } },
        data: { content },
        select: TWEET_SELECT,
      });
      await this.outbox.record(tx, tenant.communityId, 'tweet.updated', { tweet });
      return tweet;
    });
  }

  /** Comments and likes of the tweet go with it and the tweets total drops by one (both by triggers). */
  async remove(tenant: TenantContext, actor: Actor, id: string): Promise<{ id: string; deleted: true }> {
    return this.prisma.$transaction(async (tx) => {
      const tweet = await this.findEditable(tx, tenant, actor, id);
      await tx.tweet.delete({ where: { communityId_id: { communityId: tenant.communityId, id } } });
      await this.outbox.record(tx, tenant.communityId, 'tweet.deleted', { tweet });
      return { id, deleted: true as const };
    });
  }

  /**
   * The tweet, if the caller may change it (PostingRule.assertMayChange). Another community's tweet
   * is a 404, exactly like a missing one.
   */
  private async findEditable(tx: Tx, tenant: TenantContext, actor: Actor, id: string): Promise<TweetDto> {
    const tweet = await tx.tweet.findUnique({
      where: { communityId_id: { communityId: tenant.communityId, id } },
      select: TWEET_SELECT,
    });
    if (!tweet) throw Errors.notFound('Tweet');
    this.posting.assertMayChange(tenant, actor, tweet.authorId, 'tweet');
    return tweet;
  }
}
