import { loadConfig } from '../../../config/app-config';
import {
  formatDelay,
  longestSendMs,
  retryScheduleMs,
  retryScheduleProblem,
  retryScheduleView,
  scheduleFor,
} from './delivery-settings';

describe('an endpoint retrySchedule', () => {
  it('reads delays as the platform settings do, in milliseconds', () => {
    expect(retryScheduleMs(['30s', '5m', '2h', '1.5h', '1 day', '90 seconds', '1500ms'])).toEqual([
      30_000, 300_000, 7_200_000, 5_400_000, 86_400_000, 90_000, 1_500,
    ]);
    // the same parser as WEBHOOK_RETRY_SCHEDULE: one source for what a duration is
    const { config } = loadConfig({ WEBHOOK_RETRY_SCHEDULE: '30s,5m,2h,1.5h' });
    expect(retryScheduleMs(['30s', '5m', '2h', '1.5h'])).toEqual(config.webhookRetryScheduleMs);
  });

  it.each([
    [['1s'], null],
    [Array.from({ length: 20 }, () => '24h'), null],
    [[], 'retrySchedule must hold 1 to 20 delays, got 0'],
    [Array.from({ length: 21 }, () => '1m'), 'retrySchedule must hold 1 to 20 delays, got 21'],
    [['1s', '500ms'], "retrySchedule[1] must be between 1s and 24h, got '500ms'"],
    [['25h'], "retrySchedule[0] must be between 1s and 24h, got '25h'"],
    [['24h', '1s', '86400001ms'], "retrySchedule[2] must be between 1s and 24h, got '86400001ms'"],
    [['999ms'], "retrySchedule[0] must be between 1s and 24h, got '999ms'"],
    [['-5s'], "retrySchedule[0] must be between 1s and 24h, got '-5s'"],
    [['5s', 30], 'retrySchedule[1] must be a delay with a unit such as "30s", "5m" or "2h", got 30'],
    [['5000'], `retrySchedule[0] must be a delay with a unit such as "30s", "5m" or "2h", got '5000'`],
    [['soon'], `retrySchedule[0] must be a delay with a unit such as "30s", "5m" or "2h", got 'soon'`],
    [[null], 'retrySchedule[0] must be a delay with a unit such as "30s", "5m" or "2h", got null'],
    [
      '30s',
      'retrySchedule must be a list of delays such as "30s", "5m" or "2h", or null for the platform\'s schedule',
    ],
    [
      { 0: '1s' },
      'retrySchedule must be a list of delays such as "30s", "5m" or "2h", or null for the platform\'s schedule',
    ],
  ])('%j: %s', (value, problem) => {
    expect(retryScheduleProblem(value)).toBe(problem);
  });

  it('shows each delay in its largest whole unit, and none as null', () => {
    expect(
      ['1s', '90s', '5m', '2h', '24h', '1500ms'].map((d) => formatDelay(retryScheduleMs([d])[0])),
    ).toEqual(['1s', '90s', '5m', '2h', '24h', '1500ms']);
    expect(retryScheduleView(retryScheduleMs(['1.5h', '1 day', '60s']))).toEqual(['90m', '24h', '1m']);
    expect(retryScheduleView([])).toBeNull();
  });

  it("replaces the platform's schedule when set", () => {
    const platform = [50, 50];
    const own = retryScheduleMs(['1s', '1s']);
    expect(scheduleFor([], platform)).toBe(platform);
    expect(scheduleFor(null, platform)).toBe(platform);
    expect(scheduleFor(own, platform)).toBe(own);
  });
});

describe('longestSendMs', () => {
  it('is WEBHOOK_TIMEOUT or the longest endpoint timeout, whichever is longer', () => {
    expect(longestSendMs(loadConfig({ WEBHOOK_TIMEOUT: '2s' }).config)).toBe(30_000);
    expect(longestSendMs(loadConfig({ WEBHOOK_TIMEOUT: '45s' }).config)).toBe(45_000);
  });
});
