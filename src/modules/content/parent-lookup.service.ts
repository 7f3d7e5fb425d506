import { Injectable } from '@nestjs/common';
import type { ParentType } from '../../generated/prisma/enums';
import { Errors } from '../../common/errors/app-error';
import type { PrismaService, Tx } from '../../prisma/prisma.service';
import type { ParentCounts, ParentRef } from './parent-ref';
import { TasksStore } from './tasks.store';
import { TweetsStore } from './tweets.store';

/** Looks up the tweet or task that comments and likes hang off, always inside its community. */
@Injectable()
export class ParentLookupService {
  constructor(
    private readonly tweets: TweetsStore,
    private readonly tasks: TasksStore,
  ) {}

  /** The parent's store and human name: the only place a parent type picks a table. */
  private parent(type: ParentType) {
    return type === 'tweets' ? { store: this.tweets, name: 'Tweet' } : { store: this.tasks, name: 'Task' };
  }

  /** The parent's counters, or 404 when it is not in this community. */
  async counts(db: PrismaService | Tx, ref: ParentRef): Promise<ParentCounts> {
    const { store, name } = this.parent(ref.parentType);
    const counts = await store.counts(db, ref.communityId, ref.parentId);
    if (!counts) throw Errors.notFound(name);
    return counts;
  }

  /**
   * The parent and its like count as a subquery locked for its counters (the stores' counterRow:
   * $1 community, $2 id), for a comment or a like written in one statement, and the 404 to answer
   * when it selects nothing.
   */
  counterRow(ref: ParentRef): { sql: string; notFound: () => Error } {
    const { store, name } = this.parent(ref.parentType);
    return { sql: store.counterRow, notFound: () => Errors.notFound(name) };
  }

  /**
   * Makes sure the parent exists and stays until the transaction ends, before a like is written or
   * removed, with the lock of counterRow: a concurrent DELETE waits (so no orphan like survives the
   * parent's delete trigger), and likes and unlikes of one item queue on the parent before they touch
   * `likes`, in the order every like statement takes its locks.
   */
  async lockCounters(tx: Tx, ref: ParentRef): Promise<void> {
    const { store, name } = this.parent(ref.parentType);
    if (!(await store.lockCounters(tx, ref.communityId, ref.parentId))) throw Errors.notFound(name);
  }
}

export type { ParentCounts, ParentRef };
