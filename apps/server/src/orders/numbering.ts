/**
 * Order numbers: each (location, financial year) is one series
 * `{location prefix}-{FY start year}-{sequence, at least 5 digits}`, e.g. DHK-2026-00042.
 */

const SEQUENCE_DIGITS = 5;

export const formatOrderNumber = (locationPrefix: string, financialYearStart: Date, sequence: bigint): string =>
  `${locationPrefix}-${financialYearStart.getUTCFullYear()}-${sequence.toString().padStart(SEQUENCE_DIGITS, '0')}`;

/**
 * The numeric tail of an order number (`X-10` -> 10n), which orders a series numerically;
 * null when the number does not end in digits.
 */
export const trailingSequence = (orderNumber: string): bigint | null => {
  const digits = /(\d+)$/.exec(orderNumber)?.[1];
  return digits === undefined ? null : BigInt(digits);
};
