import type { HistoryCharge, HistoryLine, HistoryTotals, SalesOrder } from '@sales-order/contract';

import { toJsonNumber } from '../shared/money.js';
import type { ChargeToWrite, LineToWrite, TotalsToWrite } from './order-write-model.js';
import type { RenderedOrder } from './store/order-read-store.js';

/**
 * Conversions between the contract's shapes, the rows the store reads, and the snapshots a
 * history entry compares. Pure.
 */

/** Lines as a history entry shows them: the stored scale (numeric(18,3/4/2)), as JSON numbers. */
export const historyLines = (lines: LineToWrite[]): HistoryLine[] =>
  lines.map((line, index) => ({
    line_no: index + 1,
    product_id: line.product_id,
    packsize_id: line.packsize_id,
    quantity: toJsonNumber(line.quantity),
    rate: toJsonNumber(line.rate),
    amount: toJsonNumber(line.amount),
    remarks: line.remarks,
  }));

export const historyCharges = (charges: ChargeToWrite[]): HistoryCharge[] =>
  charges.map((charge, index) => ({
    line_no: index + 1,
    description: charge.description,
    amount: toJsonNumber(charge.amount),
  }));

/** Totals (an order's, or a locked order's) as a history entry shows them. */
export const historyTotals = (totals: TotalsToWrite): HistoryTotals => ({
  subtotal: toJsonNumber(totals.subtotal),
  other_charges_total: toJsonNumber(totals.other_charges_total),
  grand_total: toJsonNumber(totals.grand_total),
});

/**
 * A rendered order's fields, for the writes that answer with the order or compare it (the read
 * itself passes the text through). The text is the contract's shape already (order-read-shape.ts).
 */
export const toReadShape = (order: RenderedOrder): SalesOrder => order.json.parse();
