import type { JsonText } from '../../common/http/json-text';
import { Injectable } from '@nestjs/common';
import { newestFirstList, newestFirstPage, responseColumns } from '../../common/pagination/newest-first-page';
import type { Page } from '../../common/pagination/page-query.dto';
import { PrismaService, Tx } from '../../prisma/prisma.service';
import type { TweetDto } from './dto/tweet.dto';
import type { ChangeStatement } from '../events/outbox-events.store';
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
  page(communityId: string, page: { page: number; limit: number }): Promise<JsonText<Page<TweetDto>>> {
    return newestFirstPage<TweetDto>(this.prisma, TWEET_LIST, communityId, page);
  }

  find(tx: Tx, communityId: string, id: string): Promise<TweetDto | null> {
    return tx.tweet.findUnique({ where: { communityId_id: { communityId, id } }, select: TWEET_SELECT });
  }

  /** One tweet inside the caller's transaction, raising no event (the demo seed). */
  create(tx: Tx, data: { communityId: string; authorId: string; content: string }): Promise<TweetDto> {
    return tx.tweet.create({ data, select: TWEET_SELECT });
  }

  /**
   * The INSERT of one tweet, returning it as the API answers it: the change of a statement that also
   * appends its event (OutboxService.recordWithChange). The database makes the id and both instants.
   */
  insertion(data: { communityId: string; authorId: string; content: string }): ChangeStatement<TweetDto> {
    return {
      name: 'tweets-insert',
      text: `INSERT INTO tweets (id, community_id, author_id, content, updated_at)
             VALUES (gen_random_uuid(), $1::uuid, $2::uuid, $3, now())
             RETURNING ${TWEET_COLUMNS.sql}`,
      values: [data.communityId, data.authorId, data.content],
    };
  }

  /**
   * The UPDATE of one tweet's content, returning it as the API answers it, only when `authors` allows
   * the caller to change it (PostingRule.changeableAuthors): no row when it is absent or not theirs.
   * The change of a statement that also appends its event (OutboxService.recordWithChange).
   */
  contentUpdate(
    communityId: string,
    id: string,
    content: string,
    authors: { anyAuthor: boolean; ownAuthorId: string | null },
  ): ChangeStatement<TweetDto> {
    return {
      name: 'tweets-update-content',
      text: `UPDATE tweets SET content = $3, updated_at = now()
              WHERE community_id = $1::uuid AND id = $2::uuid AND ($4::boolean OR author_id = $5::uuid)
             RETURNING ${TWEET_COLUMNS.sql}`,
      values: [communityId, id, content, authors.anyAuthor, authors.ownAuthorId],
    };
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

  /**
   * The tweet and its like count as a subquery that locks it FOR NO KEY UPDATE ($1 its community, $2 its
   * id): the lock its counters' triggers take (a like or a comment bumps the tweet's row), taken first,
   * so that likes and unlikes of one tweet queue on it before they touch `likes` (no deadlock), each
   * reads the count the one before it left, and a concurrent delete waits (no orphan child). A weaker
   * lock (FOR KEY SHARE) would be upgraded by the trigger's update: two lock steps a child, and the
   * lockers of one busy row shared through a multixact.
   */
  readonly counterRow = `SELECT id, like_count FROM tweets WHERE community_id = $1::uuid AND id = $2::uuid FOR NO KEY UPDATE`;

  /** The lock of counterRow until the transaction ends (ParentLookupService.lockCounters); false when absent. */
  async lockCounters(tx: Tx, communityId: string, id: string): Promise<boolean> {
    const rows = await tx.$queryRawUnsafe<unknown[]>(this.counterRow, communityId, id);
    return rows.length > 0;
  }
}
