import { type CalculateTotalsBody, type ErrorDetail, type Totals, ValidationCode } from '@sales-order/contract';

import { type Decimal, isMoneyInRange, lineAmount, sum, toDecimal, toJsonNumber, withinOneCent } from './money.js';

/**
 * The arithmetic of an order: line amounts (quantity x rate, rounded half-up to cents), their
 * subtotal, the other charges total and the grand total. calculate-totals, create and update
 * on the server, and the order entry page's live totals, all price through here, so they can
 * never disagree.
 */

/**
 * A value and the problems found while working it out. Checks return both, so a caller
 * gathers every problem of a request (the envelope names each offending field) without
 * handing lists around to be filled in.
 */
export interface Checked<T> {
  value: T;
  problems: ErrorDetail[];
}

interface PricedLineInput {
  quantity: number;
  rate: number;
  /** What the client claims the amount is; only compared. */
  amount?: number | null;
}

interface ChargeInput {
  amount: number;
}

/** A priced line as its columns store it: fixed-point text at each column's scale. */
export interface PricedLine {
  /** numeric(18,3) */
  quantity: string;
  /** numeric(18,4) */
  rate: string;
  /** numeric(18,2): quantity x rate, rounded half-up to cents. */
  amount: string;
}

export interface PricedLines {
  lines: PricedLine[];
  subtotal: Decimal;
}

/** The problem of a money value beyond what the money columns hold; none when it fits. */
const outOfMoneyRange = (value: Decimal, path: string, what: string): ErrorDetail[] =>
  isMoneyInRange(value)
    ? []
    : [
        {
          path,
          message: `${what} (${value.toFixed(2)}) exceeds the largest amount allowed`,
          code: ValidationCode.amountOutOfRange,
        },
      ];

/** Digits and at most one decimal point: a JSON number as `String` writes it without sign or exponent. */
const PLAIN_DIGITS = /^[0-9]+(?:\.[0-9]+)?$/;

/**
 * A number with at most `scale` decimals as written (`String(value)`, the text decimal.js reads
 * too) as the integer of its value times 10^scale (3.5 at scale 3: 3500), when that is a safe
 * integer; undefined otherwise (a sign, an exponent, more decimals, too many digits).
 */
const scaledInteger = (value: number, scale: number): number | undefined => {
  const written = String(value);
  if (!PLAIN_DIGITS.test(written)) return undefined;
  const pointAt = written.indexOf('.');
  const fraction = pointAt === -1 ? '' : written.slice(pointAt + 1);
  if (fraction.length > scale) return undefined;
  const scaled = Number((pointAt === -1 ? written : written.slice(0, pointAt)) + fraction.padEnd(scale, '0'));
  return Number.isSafeInteger(scaled) ? scaled : undefined;
};

/** A non-negative safe integer over 10^scale as fixed-point text: 3500 at scale 3 is `3.500`. */
const fixedPoint = (scaled: number, scale: number): string => {
  const digits = String(scaled).padStart(scale + 1, '0');
  return `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
};

/** Half a cent at the scale of quantity x rate (3 + 4 decimals), and a cent. */
const HALF_CENT = 50_000;
const CENT = 100_000;

/**
 * A line priced in integers: quantity (3 decimals) times rate (4 decimals) is an integer of
 * 10^-7 units, rounded half-up to cents with exact integer arithmetic, when every step stays a
 * safe integer (quantities and rates of up to about 16 digits together) and no amount was
 * claimed. Exactly what the decimal.js path gives (apps/server/test/unit/order-pricing.test.ts
 * compares them), without its objects: a 500-line order's pricing was a sixth of its create's CPU
 * (docs/performance.md, "The 500-line create"). Undefined: price it with decimal.js.
 */
const priceInIntegers = (detail: PricedLineInput): { line: PricedLine; cents: number } | undefined => {
  if (detail.amount != null) return undefined;
  const quantity = scaledInteger(detail.quantity, 3);
  const rate = scaledInteger(detail.rate, 4);
  if (quantity === undefined || rate === undefined) return undefined;
  const product = quantity * rate + HALF_CENT;
  if (!Number.isSafeInteger(product)) return undefined;
  // Integers below 2^53: the remainder, the difference and the quotient are all exact.
  const cents = (product - (product % CENT)) / CENT;
  return {
    line: { quantity: fixedPoint(quantity, 3), rate: fixedPoint(rate, 4), amount: fixedPoint(cents, 2) },
    cents,
  };
};

/** Prices detail lines; the problems name lines out of range or whose claimed amount is off by more than a cent. */
export const priceLines = (details: PricedLineInput[], path = 'details'): Checked<PricedLines> => {
  const lines: PricedLine[] = [];
  const problems: ErrorDetail[] = [];
  // The integer-priced lines' cents (each below 2^53 / 10^5), and the decimal.js-priced amounts.
  let cents = 0;
  const amounts: Decimal[] = [];
  details.forEach((detail, index) => {
    const fast = priceInIntegers(detail);
    if (fast) {
      lines.push(fast.line);
      if (!Number.isSafeInteger(cents + fast.cents)) {
        amounts.push(toDecimal(fixedPoint(cents, 2)));
        cents = 0;
      }
      cents += fast.cents;
      return;
    }
    const quantity = toDecimal(detail.quantity);
    const rate = toDecimal(detail.rate);
    const amount = lineAmount(quantity, rate);
    const range = outOfMoneyRange(amount, `${path}.${index}`, 'quantity x rate');
    problems.push(...range);
    if (range.length === 0 && detail.amount != null && !withinOneCent(toDecimal(detail.amount), amount)) {
      problems.push({
        path: `${path}.${index}.amount`,
        message: `amount ${detail.amount} does not match quantity x rate = ${amount.toFixed(2)}`,
        code: ValidationCode.amountMismatch,
      });
    }
    lines.push({ quantity: quantity.toFixed(3), rate: rate.toFixed(4), amount: amount.toFixed(2) });
    amounts.push(amount);
  });
  const subtotal = sum(amounts).plus(toDecimal(fixedPoint(cents, 2)));
  return { value: { lines, subtotal }, problems: [...problems, ...outOfMoneyRange(subtotal, path, 'the subtotal')] };
};

/** The sum of other charge amounts (already exact cents by contract). */
export const totalCharges = (charges: ChargeInput[]): Decimal => sum(charges.map((charge) => toDecimal(charge.amount)));

export interface GrandTotalCheck {
  subtotal: Decimal;
  otherChargesTotal: Decimal;
  /** The grand total the client sent, if any. */
  claimed?: number | null;
}

/** Adds subtotal and charges; the problems name a claimed total off by more than a cent, or a negative or oversized one. */
export const grandTotal = ({ subtotal, otherChargesTotal, claimed }: GrandTotalCheck): Checked<Decimal> => {
  const total = subtotal.plus(otherChargesTotal);
  const range = outOfMoneyRange(total, 'grand_total', 'the grand total');
  if (range.length > 0) return { value: total, problems: range };
  if (total.isNegative()) {
    return {
      value: total,
      problems: [
        {
          path: 'grand_total',
          message: `the grand total (${total.toFixed(2)}) must not be negative: other charges exceed the lines`,
          code: ValidationCode.negativeGrandTotal,
        },
      ],
    };
  }
  if (claimed != null && !withinOneCent(toDecimal(claimed), total)) {
    return {
      value: total,
      problems: [
        {
          path: 'grand_total',
          message: `grand_total ${claimed} does not match the computed grand total ${total.toFixed(2)}`,
          code: ValidationCode.grandTotalMismatch,
        },
      ],
    };
  }
  return { value: total, problems: [] };
};

/**
 * The totals of calculate-totals' body: the same arithmetic as an order, without storing
 * anything. The problems name lines or totals out of range (the route answers them with 422;
 * the page shows no totals then).
 */
export const totalsOf = (body: CalculateTotalsBody): Checked<Totals> => {
  const priced = priceLines(body.details);
  const { subtotal } = priced.value;
  const otherChargesTotal = totalCharges(body.other_charges ?? []);
  const total = subtotal.plus(otherChargesTotal);
  return {
    value: {
      subtotal: toJsonNumber(subtotal),
      other_charges_total: toJsonNumber(otherChargesTotal),
      grand_total: toJsonNumber(total),
    },
    problems: [...priced.problems, ...outOfMoneyRange(total, '', 'the grand total')],
  };
};
