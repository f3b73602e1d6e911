import { describe, expect, it } from 'vitest';

import { DEFAULT_RETRY_SCHEDULE_MS, retryDelayAfter } from '../../src/events/retry-schedule.js';
import { loadConfig } from '../../src/startup/config.js';

describe('the webhook retry schedule', () => {
  it('is 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h by default', () => {
    expect(loadConfig({}).webhooks.retryScheduleMs).toEqual([
      5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
    ]);
    expect(DEFAULT_RETRY_SCHEDULE_MS).toEqual(loadConfig({}).webhooks.retryScheduleMs);
  });

  it('waits the n-th delay after the n-th failed attempt, and gives up once the schedule is spent', () => {
    const schedule = [5_000, 300_000];
    expect(retryDelayAfter(1, schedule)).toBe(5_000);
    expect(retryDelayAfter(2, schedule)).toBe(300_000);
    expect(retryDelayAfter(3, schedule)).toBeNull();
    expect(retryDelayAfter(1, [])).toBeNull();
  });

  it('reads WEBHOOK_RETRY_SCHEDULE as comma-separated durations, or none', () => {
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '5s,5m,30m,2h' }).webhooks.retryScheduleMs).toEqual([
      5_000, 300_000, 1_800_000, 7_200_000,
    ]);
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '200ms,1s,1d' }).webhooks.retryScheduleMs).toEqual([
      200, 1_000, 86_400_000,
    ]);
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: 'none' }).webhooks.retryScheduleMs).toEqual([]);
  });

  it.each(['5', '5s, 5m', '5 s', '1.5s', '-5s', '5sec', '4d', '5s,,5m', '', ...['1s,'.repeat(20) + '1s']])(
    'refuses WEBHOOK_RETRY_SCHEDULE=%j',
    (value) => {
      if (value === '') {
        // Empty is unset: the default.
        expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: value }).webhooks.retryScheduleMs).toEqual(
          DEFAULT_RETRY_SCHEDULE_MS,
        );
        return;
      }
      expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: value })).toThrow(
        /WEBHOOK_RETRY_SCHEDULE: must be none or up to 20/,
      );
    },
  );
});
