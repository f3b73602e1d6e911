import { type ErrorDetail, type MaxNumber, type MaxNumberQuery, ValidationCode } from '@sales-order/contract';

import type { AccessContext } from '../auth/access-context.js';
import { reaches, scopeOf } from '../auth/scope.js';
import { notFound, unprocessable } from '../errors/domain-error.js';
import { parseCalendarDate } from '../shared/calendar.js';
import { formatOrderNumber } from './numbering.js';
import type { OrderDeps } from './order-use-case.js';
import { orderReadStore } from './store/order-read-store.js';

/** The highest number of a series and the next one the server would hand out: one statement. */
export const getMaxNumber = async (
  { transactions }: OrderDeps,
  access: AccessContext,
  query: MaxNumberQuery,
): Promise<MaxNumber> => {
  // Another location's series is answered as a missing one, whether that location exists or not.
  if (!reaches(scopeOf(access), query.location_id)) throw notFound(`location ${query.location_id} not found`);
  const series = await orderReadStore.findSeries(transactions.db, query.location_id, query.year_id, scopeOf(access));
  const problems: ErrorDetail[] = [];
  if (series.year_id === null) {
    problems.push({
      path: 'year_id',
      message: `financial year ${query.year_id} does not exist`,
      code: ValidationCode.unknownFinancialYear,
    });
  }
  if (series.location_id === null) {
    problems.push({
      path: 'location_id',
      message: `location ${query.location_id} does not exist`,
      code: ValidationCode.unknownLocation,
    });
  }
  if (series.location_code === null || series.year_start === null) throw unprocessable(problems);

  return {
    max_sales_order_number: series.max_sales_order_number,
    next_sales_order_number: formatOrderNumber(
      { locationCode: series.location_code, financialYearStart: parseCalendarDate(series.year_start) },
      BigInt(series.last_sequence) + 1n,
    ),
    year_id: query.year_id,
    location_id: query.location_id,
  };
};
