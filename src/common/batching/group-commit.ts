import DataLoader from 'dataloader';
import { withoutBoundConnection } from '../../prisma/request-transaction';

export interface GroupCommitOptions {
  /** Statements of this kind running at once; calls made meanwhile wait and go together in the next. */
  maxConcurrentBatches: number;
  /** The most calls one statement carries. */
  maxBatchSize: number;
}

/**
 * Group commit: many concurrent callers of one statement share a round trip. A call made while
 * fewer than `maxConcurrentBatches` batches are running goes out on the next turn of the event loop
 * (with whatever else was called in the same turn); a call made while they are all running waits
 * for one to finish and goes out with every call that arrived meanwhile. An idle process therefore
 * adds no delay, and a busy one sends one statement for many calls instead of one each.
 *
 * Built on DataLoader's batching (its per-key cache is off: every call is its own item, in order).
 * `run(items)` must answer one result per item, in the same order; if it throws, every call of that
 * batch rejects with the error. A batch serves several callers, so it runs on the pool even when the
 * call that started it came from a request bound to its own transaction (withoutBoundConnection).
 */
export class GroupCommit<Item, Result> {
  private readonly loader: DataLoader<Item, Result>;
  private readonly maxRunning: number;
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(run: (items: readonly Item[]) => Promise<Result[]>, options: GroupCommitOptions) {
    this.maxRunning = options.maxConcurrentBatches;
    this.loader = new DataLoader<Item, Result>(
      async (items) => {
        try {
          return await run(items);
        } finally {
          this.running--;
          this.startWaiting();
        }
      },
      {
        cache: false,
        maxBatchSize: options.maxBatchSize,
        batchScheduleFn: (scheduled) => {
          const dispatch = () => withoutBoundConnection(scheduled);
          if (this.running < this.maxRunning) {
            // a place is taken now; the batch goes out next turn, with every call made in this one
            this.running++;
            setImmediate(dispatch);
          } else this.waiting.push(dispatch);
        },
      },
    );
  }

  private startWaiting(): void {
    const dispatch = this.waiting.shift();
    if (!dispatch) return;
    this.running++;
    dispatch();
  }

  call(item: Item): Promise<Result> {
    return this.loader.load(item);
  }
}
