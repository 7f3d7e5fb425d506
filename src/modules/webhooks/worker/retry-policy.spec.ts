import { retryScheduleMs, scheduleFor } from '../core/delivery-settings';
import { maxAttempts, nextRetry } from './retry-policy';

const DEFAULT_SCHEDULE = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

describe('nextRetry', () => {
  it('gives 8 attempts in all with the default schedule', () => {
    expect(maxAttempts(DEFAULT_SCHEDULE)).toBe(8);
    expect(nextRetry(DEFAULT_SCHEDULE, 7, null, () => 0.5)).toEqual({ attempt: 8, delayMs: 36_000_000 });
    expect(nextRetry(DEFAULT_SCHEDULE, 8, null)).toBeNull();
  });

  it('keeps the jitter within ±20% of the scheduled delay', () => {
    expect(nextRetry(DEFAULT_SCHEDULE, 1, null, () => 0)?.delayMs).toBe(4_000);
    expect(nextRetry(DEFAULT_SCHEDULE, 1, null, () => 0.999999)?.delayMs).toBe(6_000);
    for (let i = 0; i < 200; i++) {
      const delay = nextRetry(DEFAULT_SCHEDULE, 2, null)!.delayMs;
      expect(delay).toBeGreaterThanOrEqual(240_000);
      expect(delay).toBeLessThanOrEqual(360_000);
    }
  });

  it('honours Retry-After up to twice the scheduled delay', () => {
    expect(nextRetry(DEFAULT_SCHEDULE, 1, 8_000, () => 0.5)?.delayMs).toBe(8_000);
    expect(nextRetry(DEFAULT_SCHEDULE, 1, 60_000, () => 0.5)?.delayMs).toBe(10_000);
  });

  it('never lets a short Retry-After bring the retry forward', () => {
    expect(nextRetry(DEFAULT_SCHEDULE, 1, 1_000, () => 0.5)?.delayMs).toBe(5_000);
  });

  it("follows an endpoint's own schedule, jittered as the platform's", () => {
    const own = scheduleFor(retryScheduleMs(['1s', '1s']), DEFAULT_SCHEDULE);
    expect(maxAttempts(own)).toBe(3);
    expect(nextRetry(own, 1, null, () => 0)).toEqual({ attempt: 2, delayMs: 800 });
    expect(nextRetry(own, 2, null, () => 0.999999)).toEqual({ attempt: 3, delayMs: 1_200 });
    expect(nextRetry(own, 2, 1_800, () => 0.5)).toEqual({ attempt: 3, delayMs: 1_800 });
    expect(nextRetry(own, 3, null)).toBeNull();
  });
});
