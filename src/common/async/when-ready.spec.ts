import { whenBothReady, whenReady } from './when-ready';

describe('whenReady', () => {
  it('runs the next step at once on a value, and answers its result without a promise', () => {
    const seen: number[] = [];
    const result = whenReady(2, (n) => {
      seen.push(n);
      return n * 10;
    });
    expect(seen).toEqual([2]);
    expect(result).toBe(20);
  });

  it('waits for a promise (or a thenable) and answers a promise', async () => {
    const fromPromise = whenReady(Promise.resolve(3), (n) => n + 1);
    expect(fromPromise).toBeInstanceOf(Promise);
    await expect(fromPromise).resolves.toBe(4);
    // like Prisma's query: a then() that answers a promise, on an object that is no Promise
    const thenable = {
      then: (next: (n: number) => number) => Promise.resolve(5).then(next),
    } as unknown as Promise<number>;
    await expect(whenReady(thenable, (n) => n * 2)).resolves.toBe(10);
  });

  it("throws a step's error as it is on a value, and rejects with it after a promise", async () => {
    const fail = () => {
      throw new Error('refused');
    };
    expect(() => whenReady(1, fail)).toThrow('refused');
    await expect(whenReady(Promise.resolve(1), fail)).rejects.toThrow('refused');
  });
});

describe('whenBothReady', () => {
  it('runs at once when both are values', () => {
    expect(whenBothReady(1, 'a', (n, s) => `${s}${n}`)).toBe('a1');
  });

  it('waits for whichever is a promise, both side by side', async () => {
    const started: string[] = [];
    const slow = (name: string, value: number) => {
      started.push(name);
      return new Promise<number>((resolve) => setImmediate(() => resolve(value)));
    };
    const both = whenBothReady(slow('a', 1), slow('b', 2), (a, b) => a + b);
    expect(started).toEqual(['a', 'b']);
    await expect(both).resolves.toBe(3);
    await expect(whenBothReady(1, Promise.resolve(2), (a, b) => a * b)).resolves.toBe(2);
  });
});
