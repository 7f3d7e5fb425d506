/**
 * A value, or a promise of it: what a lookup answers from memory at once and from the database
 * later (InvalidatingCache.get).
 */
export type MaybePromise<T> = T | Promise<T>;

/** A promise, or a thenable such as Prisma's query (which is no Promise instance). */
function isPromiseLike<T>(value: MaybePromise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/**
 * `next(value)` at once when `value` is there already, or once its promise fulfils. A request
 * answered from memory then runs its guards without a promise, an await or a microtask each, which
 * on the hottest reads were a measurable part of the API's CPU
 * (docs/architecture.md#a-warm-request-awaits-nothing). A throw in `next` is thrown as it is, or rejects the promise when it ran after one.
 */
export function whenReady<T, R>(
  value: MaybePromise<T>,
  next: (value: T) => MaybePromise<R>,
): MaybePromise<R> {
  return isPromiseLike(value) ? value.then(next) : next(value);
}

/** `next(a, b)` at once when both are there already, or once both promises fulfil (side by side). */
export function whenBothReady<A, B, R>(
  a: MaybePromise<A>,
  b: MaybePromise<B>,
  next: (a: A, b: B) => MaybePromise<R>,
): MaybePromise<R> {
  if (!isPromiseLike(a) && !isPromiseLike(b)) return next(a, b);
  return Promise.all([a, b]).then(([first, second]) => next(first, second));
}
