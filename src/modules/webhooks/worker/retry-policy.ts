/**
 * ±20% (docs/product-decisions.md#5-webhooks, "Delivery"), so endpoints that failed together do not retry in
 * lock-step. An endpoint's own retrySchedule is jittered too: its messages that failed together would
 * otherwise all come back at the same instant ("Delivery settings per endpoint").
 */
export const RETRY_JITTER = 0.2;

/** The attempt to schedule after a failure: its number and its delay. */
export interface NextAttempt {
  /** the attempt number of the retry */
  attempt: number;
  delayMs: number;
}

/**
 * When to try again after attempt `attempt` failed, or null when the schedule is exhausted
 * (schedule of n delays = n + 1 attempts in all). A Retry-After (429/503) is honoured up to twice
 * the scheduled delay; it never makes the retry earlier than the jittered schedule.
 */
export function nextRetry(
  scheduleMs: readonly number[],
  attempt: number,
  retryAfterMs: number | null | undefined,
  random: () => number = Math.random,
): NextAttempt | null {
  const scheduled = scheduleMs[attempt - 1];
  if (scheduled === undefined) return null;
  const jittered = Math.round(scheduled * (1 - RETRY_JITTER + 2 * RETRY_JITTER * random()));
  const honoured = retryAfterMs && retryAfterMs > 0 ? Math.min(retryAfterMs, 2 * scheduled) : 0;
  return { attempt: attempt + 1, delayMs: Math.max(jittered, honoured) };
}

export function maxAttempts(scheduleMs: readonly number[]): number {
  return scheduleMs.length + 1;
}
