import { describe, expect, it } from 'vitest';

import {
  addDays,
  daysBetween,
  formatCalendarDate,
  formatDateTime,
  parseCalendarDate,
  todayIn,
} from '../../src/shared/calendar.js';

describe('calendar dates', () => {
  it('round-trips a date whatever the process time zone', () => {
    for (const text of ['2026-01-01', '2026-12-31', '2024-02-29', '0099-07-01']) {
      expect(formatCalendarDate(parseCalendarDate(text))).toBe(text);
    }
  });

  it('counts whole days across a leap day and a DST change in any zone', () => {
    expect(daysBetween(parseCalendarDate('2024-02-28'), parseCalendarDate('2024-03-01'))).toBe(2);
    expect(daysBetween(parseCalendarDate('2026-03-28'), parseCalendarDate('2026-03-30'))).toBe(2);
    expect(daysBetween(parseCalendarDate('2026-03-30'), parseCalendarDate('2026-03-28'))).toBe(-2);
    expect(formatCalendarDate(addDays(parseCalendarDate('2026-12-31'), 1))).toBe('2027-01-01');
  });

  it("takes today's date in the business zone, not the process's, near midnight", () => {
    expect(formatCalendarDate(todayIn('UTC', new Date('2026-11-21T23:59:59.999Z')))).toBe('2026-11-21');
    expect(formatCalendarDate(todayIn('UTC', new Date('2026-11-22T00:00:00.000Z')))).toBe('2026-11-22');
    // 18:00 UTC is already midnight in Dhaka (+06:00), and still the day before in Los Angeles.
    expect(formatCalendarDate(todayIn('Asia/Dhaka', new Date('2026-11-21T18:00:00.000Z')))).toBe('2026-11-22');
    expect(formatCalendarDate(todayIn('Asia/Dhaka', new Date('2026-11-21T17:59:59.999Z')))).toBe('2026-11-21');
    expect(formatCalendarDate(todayIn('America/Los_Angeles', new Date('2026-11-22T07:59:59.000Z')))).toBe('2026-11-21');
  });

  it('formats the spec DateTime in UTC to the second', () => {
    expect(formatDateTime(new Date('2026-11-22T05:06:07.891Z'))).toBe('2026-11-22 05:06:07');
  });
});
