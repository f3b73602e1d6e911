import { DeliveryCode } from '@sales-order/contract';

import { unprocessable } from '../errors/domain-error.js';
import { formatCalendarDate } from '../shared/calendar.js';

/**
 * A delivery's or a return's date: not before what it follows (the order's date, the delivery's)
 * and not after today where the business is. Dates are YYYY-MM-DD, so they compare as text.
 */
export const checkDate = (
  date: string,
  path: string,
  notBefore: { date: string; name: string; code: string },
  today: Date,
): void => {
  if (date < notBefore.date) {
    throw unprocessable([
      { path, message: `${date} is before ${notBefore.name} (${notBefore.date})`, code: notBefore.code },
    ]);
  }
  const todayText = formatCalendarDate(today);
  if (date > todayText) {
    throw unprocessable([
      { path, message: `${date} is after today (${todayText})`, code: DeliveryCode.dateOutOfRange },
    ]);
  }
};
