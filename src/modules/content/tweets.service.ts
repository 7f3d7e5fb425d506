import { Injectable } from '@nestjs/common';
import { PostingRule } from '../../common/access/posting';
import { Errors } from '../../common/errors/app-error';
import type { Actor, TenantContext } from '../../common/http/request-context';
import type { Page } from '../../common/pagination/page-query.dto';
import { PrismaService, Tx } from '../../prisma/prisma.service';
import { OutboxService } from '../events/outbox.service';
import type { TweetDto } from './dto/tweet.dto';
import { TweetsStore } from './tweets.store';

@Injectable()
export class TweetsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly tweets: TweetsStore,
    private readonly outbox: OutboxService,
    private readonly posting: PostingRule,
  ) {}

  /** Newest first; the id breaks ties so pages never overlap or skip (docs/product-decisions.md#4-lists). */
  list(communityId: string, page: { page: number; limit: number }): Promise<Page<TweetDto>> {
    return this.tweets.page(communityId, page);
  }

  async create(tenant: TenantContext, actor: Actor, content: string): Promise<TweetDto> {
    await this.posting.assertMayPost(tenant);
    return this.prisma.$transaction(async (tx) => {
      const tweet = await this.tweets.create(tx, {
        communityId: tenant.communityId,
        authorId: actor.userId,
        content,
      });
      await this.outbox.record(tx, tenant.communityId, 'tweet.created', { tweet });
      return tweet;
    });
  }

  async update(tenant: TenantContext, actor: Actor, id: string, content: string): Promise<TweetDto> {
    return this.prisma.$transaction(async (tx) => {
      await this.findEditable(tx, tenant, actor, id);
      const tweet = await this.tweets.update(tx, tenant.communityId, id, content);
      await this.outbox.record(tx, tenant.communityId, 'tweet.updated', { tweet });
      return tweet;
    });
  }

  /** Comments and likes of the tweet go with it and the tweets total drops by one (both by triggers). */
  async remove(tenant: TenantContext, actor: Actor, id: string): Promise<{ id: string; deleted: true }> {
    return this.prisma.$transaction(async (tx) => {
      const tweet = await this.findEditable(tx, tenant, actor, id);
      await this.tweets.delete(tx, tenant.communityId, id);
      await this.outbox.record(tx, tenant.communityId, 'tweet.deleted', { tweet });
      return { id, deleted: true as const };
    });
  }

  /**
   * The tweet, if the caller may change it (PostingRule.assertMayChange). Another community's tweet
   * is a 404, exactly like a missing one.
   */
  private async findEditable(tx: Tx, tenant: TenantContext, actor: Actor, id: string): Promise<TweetDto> {
    const tweet = await this.tweets.find(tx, tenant.communityId, id);
    if (!tweet) throw Errors.notFound('Tweet');
    this.posting.assertMayChange(tenant, actor, tweet.authorId, 'tweet');
    return tweet;
  }
}
