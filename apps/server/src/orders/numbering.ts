import { ValidationCode } from '@sales-order/contract';

import type { Checked } from '../errors/checked.js';

/**
 * Every rule about order numbers. Each (location, financial year) is one series
 * `{location prefix}-{FY start year}-{sequence, at least 5 digits}`, e.g. DHK-2026-00042.
 *
 * - A supplied number shaped like a series number (any prefix, a 4-digit year, digits; any
 *   case) must be of the order's own series, and is stored in canonical form: prefix
 *   upper-case, sequence zero-padded to at least 5 digits. Only such a number moves its
 *   series' counter, and only up to `maxAhead` past it.
 * - Any other supplied number is free-form (the host's own numbering, a PO reference): stored
 *   as sent, unique, and it moves no counter.
 * - No two orders share a number, case and padding ignored. The database enforces that with a
 *   unique index over `sales_order_number_key(sales_order_no)` (migration
 *   20261122044336_order_number_uniqueness), a SQL mirror of `orderNumberKey` below; a test
 *   keeps the two in step.
 */

/** A sequence is zero-padded to at least this many digits (mirrored in SQL by store/order-write-store.ts). */
export const SEQUENCE_MIN_DIGITS = 5;
/** ORDER_NUMBER_MAX_AHEAD's default. */
export const DEFAULT_ORDER_NUMBER_MAX_AHEAD = 10_000n;
const SERIES_SHAPE = /^(.+)-(\d{4})-(\d+)$/;

/** A number series: one location in one financial year. */
export interface Series {
  locationCode: string;
  financialYearStart: Date;
}

const canonical = (prefix: string, year: string, sequence: bigint) =>
  `${prefix.toUpperCase()}-${year}-${sequence.toString().padStart(SEQUENCE_MIN_DIGITS, '0')}`;

/** What every canonical number of a series starts with, e.g. DHK-2026-. */
export const seriesPrefix = (series: Series): string =>
  `${series.locationCode.toUpperCase()}-${series.financialYearStart.getUTCFullYear()}-`;

/** The canonical number of a series' sequence, e.g. DHK-2026-00042. */
export const formatOrderNumber = (series: Series, sequence: bigint): string =>
  canonical(series.locationCode, String(series.financialYearStart.getUTCFullYear()), sequence);

/**
 * What makes two numbers the same: the canonical form of a series-shaped number, the
 * upper-cased text of any other. Mirrored in SQL by `sales_order_number_key`.
 */
export const orderNumberKey = (orderNumber: string): string => {
  const shape = SERIES_SHAPE.exec(orderNumber);
  return shape ? canonical(shape[1]!, shape[2]!, BigInt(shape[3]!)) : orderNumber.toUpperCase();
};

/** How a supplied number is stored: its text, and its sequence when it is a number of the series. */
export type SuppliedNumber =
  | { kind: 'series'; orderNumber: string; sequence: bigint }
  | { kind: 'free-form'; orderNumber: string; sequence: null };

/**
 * Reads a client-supplied number for an order of `series`. A series-shaped number of another
 * series is a problem (`order_number_out_of_series`) and gives null.
 */
export const readSuppliedNumber = (supplied: string, series: Series): Checked<SuppliedNumber | null> => {
  const shape = SERIES_SHAPE.exec(supplied);
  if (!shape) return { value: { kind: 'free-form', orderNumber: supplied, sequence: null }, problems: [] };
  const [prefix, year, digits] = [shape[1]!, shape[2]!, shape[3]!];
  const ownYear = String(series.financialYearStart.getUTCFullYear());
  if (prefix.toUpperCase() !== series.locationCode.toUpperCase() || year !== ownYear) {
    const message =
      `${supplied} is shaped like a number of series ${prefix.toUpperCase()}-${year}, but this order's series is ` +
      `${series.locationCode.toUpperCase()}-${ownYear}; supply a number of that series, or a number of another shape`;
    return {
      value: null,
      problems: [{ path: 'sales_order_no', message, code: ValidationCode.orderNumberOutOfSeries }],
    };
  }
  const sequence = BigInt(digits);
  return { value: { kind: 'series', orderNumber: canonical(prefix, year, sequence), sequence }, problems: [] };
};

/**
 * Where a series' counter goes when an order takes `sequence` from it: never back, and never
 * more than `maxAhead` past where it stands (a typo such as 9999999 would otherwise decide
 * every later number). Null, with the problem, when the number is too far ahead.
 */
export const counterAfterSuppliedNumber = (
  counter: bigint,
  sequence: bigint,
  maxAhead: bigint,
): Checked<bigint | null> => {
  if (sequence > counter + maxAhead) {
    const message = `the sequence ${sequence} is more than ${maxAhead} past the series' last number (${counter})`;
    return {
      value: null,
      problems: [{ path: 'sales_order_no', message, code: ValidationCode.orderNumberTooFarAhead }],
    };
  }
  return { value: sequence > counter ? sequence : counter, problems: [] };
};

/** An order of a list that moves its series' counter: the next number, or a supplied sequence. */
export type CounterClaim = { kind: 'next' } | { kind: 'supplied'; sequence: bigint };

/**
 * The numbers a list of orders of one series takes from its counter, in list order, as if each
 * were created alone: a `next` order takes the counter + 1; a supplied sequence moves the counter
 * up to it (counterAfterSuppliedNumber), or leaves it where it is when too far ahead (that order
 * is refused, and the rest go on from the unmoved counter). Each claim's `counter` is where the
 * counter stands once it is settled (a `next` order's sequence is that); `last` is where the list
 * leaves it.
 */
export const settleCounter = (
  counter: bigint,
  claims: readonly CounterClaim[],
  maxAhead: bigint,
): { counters: bigint[]; last: bigint } => {
  let current = counter;
  const counters = claims.map((claim) => {
    current =
      claim.kind === 'next'
        ? current + 1n
        : (counterAfterSuppliedNumber(current, claim.sequence, maxAhead).value ?? current);
    return current;
  });
  return { counters, last: current };
};
