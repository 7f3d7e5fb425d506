import { GroupCommit } from './group-commit';

/** A statement whose completion the test controls, recording the items of each batch. */
function controlledStatement() {
  const batches: number[][] = [];
  const finishers: (() => void)[] = [];
  const run = (items: readonly number[]) => {
    batches.push([...items]);
    return new Promise<number[]>((resolve) => finishers.push(() => resolve(items.map((n) => n * 10))));
  };
  return { batches, run, finishNext: () => finishers.shift()?.() };
}

/** Lets scheduled batches start (setImmediate) and settled promises run their callbacks. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('GroupCommit', () => {
  it('sends a call made on an idle process at once, alone', async () => {
    const statement = controlledStatement();
    const commit = new GroupCommit(statement.run, { maxConcurrentBatches: 1, maxBatchSize: 100 });
    const result = commit.call(1);
    await turn();
    expect(statement.batches).toEqual([[1]]);
    statement.finishNext();
    await expect(result).resolves.toBe(10);
  });

  it('puts the calls made while the batches run into one statement, answering each its own result', async () => {
    const statement = controlledStatement();
    const commit = new GroupCommit(statement.run, { maxConcurrentBatches: 1, maxBatchSize: 100 });
    const first = commit.call(1);
    await turn();
    const waiting = [2, 3, 4].map((n) => commit.call(n));
    await turn();
    expect(statement.batches).toEqual([[1]]); // the three wait for the running statement

    statement.finishNext();
    await first;
    await turn();
    expect(statement.batches).toEqual([[1], [2, 3, 4]]);
    statement.finishNext();
    await expect(Promise.all(waiting)).resolves.toEqual([20, 30, 40]);
  });

  it('runs up to maxConcurrentBatches statements at once and caps each at maxBatchSize', async () => {
    const statement = controlledStatement();
    const commit = new GroupCommit(statement.run, { maxConcurrentBatches: 2, maxBatchSize: 2 });
    const calls = [1, 2, 3, 4, 5].map((n) => commit.call(n));
    await turn();
    expect(statement.batches).toEqual([
      [1, 2],
      [3, 4],
    ]);
    statement.finishNext();
    await turn();
    await turn();
    expect(statement.batches).toEqual([[1, 2], [3, 4], [5]]);
    statement.finishNext();
    statement.finishNext();
    await expect(Promise.all(calls)).resolves.toEqual([10, 20, 30, 40, 50]);
  });

  it('rejects every call of a failed statement and goes on with the next batch', async () => {
    let fail = true;
    const commit = new GroupCommit(
      async (items: readonly number[]) => {
        if (fail) throw new Error('connection lost');
        return items.map((n) => n + 1);
      },
      { maxConcurrentBatches: 1, maxBatchSize: 10 },
    );
    const failed = [commit.call(1), commit.call(2)];
    await expect(Promise.all(failed.map((p) => p.catch((e: Error) => e.message)))).resolves.toEqual([
      'connection lost',
      'connection lost',
    ]);
    fail = false;
    await expect(commit.call(3)).resolves.toBe(4);
  });
});
