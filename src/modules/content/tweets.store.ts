import { Injectable } from '@nestjs/common';
import { newestFirstList, newestFirstPage, responseColumns } from '../../common/pagination/newest-first-page';
import type { Page } from '../../common/pagination/page-query.dto';
import { PrismaService, Tx } from '../../prisma/prisma.service';
import type { TweetDto } from './dto/tweet.dto';
import type { ParentCounts } from './parent-ref';

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

/** The one owner of `tweets`' queries; every one is scoped by the community. */
@Injectable()
export class TweetsStore {
  constructor(private readonly prisma: PrismaService) {}

  /** Newest first; the id breaks ties so pages never overlap or skip. */
  page(communityId: string, page: { page: number; limit: number }): Promise<Page<TweetDto>> {
    return newestFirstPage<TweetDto>(this.prisma, TWEET_LIST, communityId, page);
  }

  find(tx: Tx, communityId: string, id: string): Promise<TweetDto | null> {
    return tx.tweet.findUnique({ where: { communityId_id: { communityId, id } }, select: TWEET_SELECT });
  }

  create(tx: Tx, data: { communityId: string; authorId: string; content: string }): Promise<TweetDto> {
    return tx.tweet.create({ data, select: TWEET_SELECT });
  }

  update(tx: Tx, communityId: string, id: string, content: string): Promise<TweetDto> {
    return tx.tweet.update({
      where: { communityId_id: { communityId, id } },
      data: { content },
      select: TWEET_SELECT,
    });
  }

  /** Its comments and likes go with it and the community's tweets total drops (both by triggers). */
  async delete(tx: Tx, communityId: string, id: string): Promise<void> {
    await tx.tweet.delete({ where: { communityId_id: { communityId, id } } });
  }

  /** The tweet's trigger-kept counters, or null when it is not in this community. */
  async counts(db: PrismaService | Tx, communityId: string, id: string): Promise<ParentCounts | null> {
    const rows = await db.$queryRaw<ParentCounts[]>`
      SELECT like_count AS "likeCount", comment_count AS "commentCount"
        FROM tweets WHERE community_id = ${communityId}::uuid AND id = ${id}::uuid`;
    return rows[0] ?? null;
  }

  /** FOR KEY SHARE on the tweet until the transaction ends (see ParentLookupService.lock); false when absent. */
  async lockKey(tx: Tx, communityId: string, id: string): Promise<boolean> {
    const rows = await tx.$queryRaw<unknown[]>`
      SELECT 1 FROM tweets WHERE community_id = ${communityId}::uuid AND id = ${id}::uuid FOR KEY SHARE`;
    return rows.length > 0;
  }
}
