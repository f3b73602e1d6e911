import { type ErrorDetail, ValidationCode } from '@sales-order/contract';

import { orderNumberKey } from './numbering.js';

/**
 * The order's own rules, apart from money (order-pricing.ts) and numbers (numbering.ts): who
 * acts on it and what may change once it exists. Pure: the use cases apply them.
 */

/** Who acts: the authenticated caller, recorded as created_by / updated_by / deleted_by and in history. */
export type Actor = string | null;

/** What an order is fixed to once created. */
export interface FixedFields {
  sales_order_no: string;
  location_id: number;
  financial_year_id: number;
}

/**
 * An order keeps its number (numbers are never reused) and its location (its series): a change
 * of either is a problem.
 */
export const numberOrLocationChangeProblems = (
  current: FixedFields,
  change: { sales_order_no?: string; location_id?: number },
): ErrorDetail[] => {
  const problems: ErrorDetail[] = [];
  if (
    change.sales_order_no !== undefined &&
    orderNumberKey(change.sales_order_no) !== orderNumberKey(current.sales_order_no)
  ) {
    problems.push({
      path: 'sales_order_no',
      message: 'an order keeps its number: numbers are never reused',
      code: ValidationCode.orderNumberChange,
    });
  }
  if (change.location_id !== undefined && change.location_id !== current.location_id) {
    problems.push({
      path: 'location_id',
      message: 'an order cannot move to another location',
      code: ValidationCode.locationChange,
    });
  }
  return problems;
};

/** An order keeps its financial year (its series): a new date in another year is a problem. */
export const financialYearChangeProblems = (current: FixedFields, yearOfNewDate: number | undefined): ErrorDetail[] =>
  yearOfNewDate !== undefined && yearOfNewDate !== current.financial_year_id
    ? [
        {
          path: 'sales_order_date',
          message: 'an order cannot move to another financial year',
          code: ValidationCode.financialYearChange,
        },
      ]
    : [];
