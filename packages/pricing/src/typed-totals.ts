import { CalculateTotalsBodySchema, type Totals } from '@sales-order/contract';

import { totalsOf } from './order-pricing.js';

/**
 * Totals of an order as a clerk is typing it: what the order entry page shows live, with no
 * request. A line counts once its quantity and rate are what calculate-totals accepts (the
 * contract's own schema decides: quantity above 0 with at most 3 decimals, rate 0 or more with at
 * most 4, within their maximums), a charge once its amount is; the rest are left out until they
 * are complete, as the server's calculate-totals would refuse them. The numbers are the ones the
 * page sends (`Number` of the typed text, which JSON carries as the same text), priced by the
 * server's own module, so the page and the server agree to the cent
 * (apps/server/test/pricing-agreement.test.ts).
 */

const LineSchema = CalculateTotalsBodySchema.shape.details.element;
const AmountSchema = CalculateTotalsBodySchema.shape.other_charges.unwrap().element.shape.amount;

/** A decimal as typed, without group separators or exponent ("1,250.50" and "1e3" are not numbers here). */
export const typedNumber = (text: string): number | undefined => {
  const trimmed = text.trim();
  return /^-?\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : undefined;
};

export interface TypedLine {
  quantity: string;
  rate: string;
}

export interface TypedCharge {
  amount: string;
}

/** The totals of the complete lines and charges; undefined when there are none, or a total is out of range. */
export const typedTotals = (lines: readonly TypedLine[], charges: readonly TypedCharge[]): Totals | undefined => {
  const details = lines.flatMap((line) => {
    const parsed = LineSchema.safeParse({ quantity: typedNumber(line.quantity), rate: typedNumber(line.rate) });
    return parsed.success ? [parsed.data] : [];
  });
  const otherCharges = charges.flatMap((charge) => {
    const parsed = AmountSchema.safeParse(typedNumber(charge.amount));
    return parsed.success ? [{ amount: parsed.data }] : [];
  });
  if (details.length === 0 && otherCharges.length === 0) return undefined;
  const totals = totalsOf({ details, other_charges: otherCharges });
  return totals.problems.length === 0 ? totals.value : undefined;
};
