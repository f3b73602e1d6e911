import { type CalculateTotalsBody, type ErrorDetail, type Totals, ValidationCode } from '@sales-order/contract';

import type { Checked } from '../errors/checked.js';
import { unprocessable } from '../errors/domain-error.js';
import {
  type Decimal,
  isMoneyInRange,
  lineAmount,
  sum,
  toDecimal,
  toJsonNumber,
  withinOneCent,
} from '../shared/money.js';

/**
 * The arithmetic of an order: line amounts (quantity x rate, rounded half-up to cents), their
 * subtotal, the other charges total and the grand total. calculate-totals, create and update
 * all price through here, so they can never disagree.
 */

interface PricedLineInput {
  quantity: number;
  rate: number;
  /** What the client claims the amount is; only compared. */
  amount?: number | null;
}

interface ChargeInput {
  amount: number;
}

export interface PricedLine {
  quantity: Decimal;
  rate: Decimal;
  amount: Decimal;
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

/** Prices detail lines; the problems name lines out of range or whose claimed amount is off by more than a cent. */
export const priceLines = (details: PricedLineInput[], path = 'details'): Checked<PricedLines> => {
  const priced = details.map((detail, index) => {
    const quantity = toDecimal(detail.quantity);
    const rate = toDecimal(detail.rate);
    const amount = lineAmount(quantity, rate);
    const range = outOfMoneyRange(amount, `${path}.${index}`, 'quantity x rate');
    const mismatch: ErrorDetail[] =
      range.length === 0 && detail.amount != null && !withinOneCent(toDecimal(detail.amount), amount)
        ? [
            {
              path: `${path}.${index}.amount`,
              message: `amount ${detail.amount} does not match quantity x rate = ${amount.toFixed(2)}`,
              code: ValidationCode.amountMismatch,
            },
          ]
        : [];
    return { line: { quantity, rate, amount }, problems: [...range, ...mismatch] };
  });
  const lines = priced.map(({ line }) => line);
  const subtotal = sum(lines.map((line) => line.amount));
  return {
    value: { lines, subtotal },
    problems: [...priced.flatMap(({ problems }) => problems), ...outOfMoneyRange(subtotal, path, 'the subtotal')],
  };
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

/** The calculate-totals use case: the same arithmetic as an order, without storing anything. */
export const calculateTotals = (body: CalculateTotalsBody): Totals => {
  const priced = priceLines(body.details);
  const { subtotal } = priced.value;
  const otherChargesTotal = totalCharges(body.other_charges ?? []);
  const total = subtotal.plus(otherChargesTotal);
  const problems = [...priced.problems, ...outOfMoneyRange(total, '', 'the grand total')];
  if (problems.length > 0) throw unprocessable(problems);
  return {
    subtotal: toJsonNumber(subtotal),
    other_charges_total: toJsonNumber(otherChargesTotal),
    grand_total: toJsonNumber(total),
  };
};
