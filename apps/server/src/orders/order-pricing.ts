import { type CalculateTotalsBody, type ErrorDetail, type Totals, ValidationCode } from '@sales-order/contract';

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

/** Reports a money value beyond what the money columns hold; true when it fits. */
const fitsMoneyRange = (value: Decimal, path: string, what: string, problems: ErrorDetail[]): boolean => {
  if (isMoneyInRange(value)) return true;
  problems.push({
    path,
    message: `${what} (${value.toFixed(2)}) exceeds the largest amount allowed`,
    code: ValidationCode.amountOutOfRange,
  });
  return false;
};

/** Prices detail lines; reports lines whose claimed amount is off by more than a cent. */
export const priceLines = (details: PricedLineInput[], problems: ErrorDetail[], path = 'details'): PricedLines => {
  const lines = details.map((detail, index) => {
    const quantity = toDecimal(detail.quantity);
    const rate = toDecimal(detail.rate);
    const amount = lineAmount(quantity, rate);
    const inRange = fitsMoneyRange(amount, `${path}.${index}`, 'quantity x rate', problems);
    if (inRange && detail.amount != null && !withinOneCent(toDecimal(detail.amount), amount)) {
      problems.push({
        path: `${path}.${index}.amount`,
        message: `amount ${detail.amount} does not match quantity x rate = ${amount.toFixed(2)}`,
        code: ValidationCode.amountMismatch,
      });
    }
    return { quantity, rate, amount };
  });
  const subtotal = sum(lines.map((line) => line.amount));
  fitsMoneyRange(subtotal, path, 'the subtotal', problems);
  return { lines, subtotal };
};

/** The sum of other charge amounts (already exact cents by contract). */
export const totalCharges = (charges: ChargeInput[]): Decimal => sum(charges.map((charge) => toDecimal(charge.amount)));

export interface GrandTotalCheck {
  subtotal: Decimal;
  otherChargesTotal: Decimal;
  /** The grand total the client sent, if any. */
  claimed?: number | null;
}

/** Adds subtotal and charges; reports a claimed total off by more than a cent, or a negative or oversized one. */
export const grandTotal = (
  { subtotal, otherChargesTotal, claimed }: GrandTotalCheck,
  problems: ErrorDetail[],
): Decimal => {
  const total = subtotal.plus(otherChargesTotal);
  if (!fitsMoneyRange(total, 'grand_total', 'the grand total', problems)) return total;
  if (total.isNegative()) {
    problems.push({
      path: 'grand_total',
      message: `the grand total (${total.toFixed(2)}) must not be negative: other charges exceed the lines`,
      code: ValidationCode.negativeGrandTotal,
    });
  } else if (claimed != null && !withinOneCent(toDecimal(claimed), total)) {
    problems.push({
      path: 'grand_total',
      message: `grand_total ${claimed} does not match the computed grand total ${total.toFixed(2)}`,
      code: ValidationCode.grandTotalMismatch,
    });
  }
  return total;
};

/** The calculate-totals use case: the same arithmetic as an order, without storing anything. */
export const calculateTotals = (body: CalculateTotalsBody): Totals => {
  const problems: ErrorDetail[] = [];
  const { subtotal } = priceLines(body.details, problems);
  const otherChargesTotal = totalCharges(body.other_charges ?? []);
  const total = subtotal.plus(otherChargesTotal);
  fitsMoneyRange(total, '', 'the grand total', problems);
  if (problems.length > 0) throw unprocessable(problems);
  return {
    subtotal: toJsonNumber(subtotal),
    other_charges_total: toJsonNumber(otherChargesTotal),
    grand_total: toJsonNumber(total),
  };
};
