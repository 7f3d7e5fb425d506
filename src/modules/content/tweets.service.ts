import type { JsonText } from '../../common/http/json-text';
import { Injectable } from '@nestjs/common';
import { changeableAuthors, PostingRule } from '../../common/access/posting';
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
  list(communityId: string, page: { page: number; limit: number }): Promise<JsonText<Page<TweetDto>>> {
    return this.tweets.page(communityId, page);
  }

  /** The tweet and its tweet.created event in one statement (OutboxService.recordWithChange). */
  async create(tenant: TenantContext, actor: Actor, content: string): Promise<TweetDto> {
    await this.posting.assertMayPost(tenant);
    const insertion = this.tweets.insertion({
      communityId: tenant.communityId,
      authorId: actor.userId,
      content,
    });
    const tweet = await this.outbox.recordWithChange(insertion, tenant.communityId, 'tweet.created', 'tweet');
    return tweet!; // an INSERT … VALUES returns its row
  }

  /**
   * The change, its permission and its tweet.updated event in one statement; only when it changed
   * nothing is the tweet read, to answer 404 or 403 as findEditable does.
   */
  async update(tenant: TenantContext, actor: Actor, id: string, content: string): Promise<TweetDto> {
    const authors = changeableAuthors(tenant.permissions, actor);
    const change = this.tweets.contentUpdate(tenant.communityId, id, content, authors);
    const tweet = await this.outbox.recordWithChange(change, tenant.communityId, 'tweet.updated', 'tweet');
    if (tweet) return tweet;
    await this.findEditable(this.prisma, tenant, actor, id);
    // not reached: a tweet's id and author never change, so the statement and the read agree
    throw new Error(`tweet ${id} is editable, yet the update changed no row`);
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
  private async findEditable(
    tx: Tx | PrismaService,
    tenant: TenantContext,
    actor: Actor,
    id: string,
  ): Promise<TweetDto> {
    const tweet = await this.tweets.find(tx, tenant.communityId, id);
    if (!tweet) throw Errors.notFound('Tweet');
    this.posting.assertMayChange(tenant, actor, tweet.authorId, 'tweet');
    return tweet;
  }
}
