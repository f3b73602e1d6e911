/**
 * An order's lines, charges and totals as their columns store them: decimals as fixed-point text
 * at each column's scale. What the write model prepares, the history entry compares and the
 * stores write. Pure types.
 */

/** A priced line as its columns store it: decimals as fixed-point text at each column's scale. */
export interface LineToWrite {
  product_id: number;
  packsize_id: number | null;
  /** numeric(18,3) */
  quantity: string;
  /** numeric(18,4) */
  rate: string;
  /** numeric(18,2) */
  amount: string;
  remarks: string | null;
}

export interface ChargeToWrite {
  description: string;
  /** numeric(18,2) */
  amount: string;
}

/** Totals as their columns store them: numeric(18,2) as fixed-point text. */
export interface TotalsToWrite {
  subtotal: string;
  other_charges_total: string;
  grand_total: string;
}
