/**
 * Calendar dates travel as `YYYY-MM-DD` and are stored in DATE columns. In between they are
 * JS Dates at UTC midnight, so no server time zone can shift them by a day.
 */

export const parseCalendarDate = (text: string): Date => new Date(`${text}T00:00:00.000Z`);

export const formatCalendarDate = (date: Date): string => date.toISOString().slice(0, 10);

/** The spec's DateTime: `YYYY-MM-DD HH:mm:ss`, in UTC. */
export const formatDateTime = (date: Date): string => date.toISOString().slice(0, 19).replace('T', ' ');

const DAY_MS = 86_400_000;

/**
 * One formatter per time zone, made on first use: making one costs some 0.3 ms of CPU, far more
 * than formatting with it, and a delivery asks for today on every request. At most one per IANA
 * zone.
 */
const dayFormats = new Map<string, Intl.DateTimeFormat>();
const dayFormatOf = (timeZone: string): Intl.DateTimeFormat => {
  let format = dayFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: 'numeric', day: 'numeric' });
    dayFormats.set(timeZone, format);
  }
  return format;
};

/**
 * Today's calendar date where the business is (BUSINESS_TIME_ZONE, an IANA name), the
 * service's one notion of "today": at 02:00 in Dhaka it is still yesterday in UTC.
 */
export const todayIn = (timeZone: string, now: Date = new Date()): Date => {
  const parts = dayFormatOf(timeZone).formatToParts(now);
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((item) => item.type === type)!.value);
  return new Date(Date.UTC(part('year'), part('month') - 1, part('day')));
};

/**
 * The canonical name of an IANA time zone (`asia/dhaka` -> `Asia/Dhaka`), or undefined when Intl
 * knows no such zone. Fixed offsets such as `+06:00` are refused although newer Node versions
 * accept them: an offset knows no daylight-saving rules, so it would be wrong for half the year
 * in many places.
 */
export const canonicalTimeZone = (name: string): string | undefined => {
  if (/^[+-]/.test(name)) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
};

export const addDays = (date: Date, days: number): Date => new Date(date.getTime() + days * DAY_MS);

/** Whole days from `from` to `to` (both UTC midnights): negative when `to` comes first. */
export const daysBetween = (from: Date, to: Date): number => Math.round((to.getTime() - from.getTime()) / DAY_MS);
