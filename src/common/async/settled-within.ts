/**
 * Waits for `promise` to settle, but no longer than `ms`: true if it settled in time (fulfilled or
 * rejected alike), false if the wait ran out. For shutdown steps that must end whether or not what
 * they wait on ever answers; the timer does not outlive the wait.
 */
export async function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
