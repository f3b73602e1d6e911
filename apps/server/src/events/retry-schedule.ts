/**
 * When a failed delivery is tried again: by default a schedule like Stripe's and Svix's, replaced
 * by WEBHOOK_RETRY_SCHEDULE. Pure.
 */

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: eight attempts over about 27.5 hours. */
export const DEFAULT_RETRY_SCHEDULE_MS = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
];

/**
 * The wait before the next attempt after `attemptsMade` attempts all failed, or null when the
 * schedule is spent (the delivery has failed).
 */
export const retryDelayAfter = (attemptsMade: number, scheduleMs: readonly number[]): number | null =>
  scheduleMs[attemptsMade - 1] ?? null;
