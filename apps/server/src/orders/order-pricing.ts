import type { CalculateTotalsBody, Totals } from '@sales-order/contract';
import { totalsOf } from '@sales-order/pricing';

import { unprocessable } from '../errors/domain-error.js';

/**
 * The arithmetic of an order lives in the shared pricing package (packages/pricing), which the
 * order entry page bundles too: the page's live totals are these, to the cent.
 */
export {
  grandTotal,
  type GrandTotalCheck,
  type PricedLine,
  type PricedLines,
  priceLines,
  totalCharges,
} from '@sales-order/pricing';

/** The calculate-totals use case: the same arithmetic as an order, without storing anything. */
export const calculateTotals = (body: CalculateTotalsBody): Totals => {
  const totals = totalsOf(body);
  if (totals.problems.length > 0) throw unprocessable(totals.problems);
  return totals.value;
};
