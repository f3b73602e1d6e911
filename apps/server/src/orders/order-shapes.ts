import type { HistoryCharge, HistoryLine, HistoryTotals, SalesOrder } from '@sales-order/contract';

import { formatDateTime } from '../shared/calendar.js';
import { toJsonNumber } from '../shared/money.js';
import type { ChargeToWrite, LineToWrite, TotalsToWrite } from './order-write-model.js';
import type { OrderReadRow } from './store/order-read-store.js';

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

/** An order as the API reads it: decimals as JSON numbers, instants as the spec's DateTime. */
export const toReadShape = (order: OrderReadRow): SalesOrder => ({
  ...order,
  subtotal: toJsonNumber(order.subtotal),
  other_charges_total: toJsonNumber(order.other_charges_total),
  grand_total: toJsonNumber(order.grand_total),
  details: order.details.map((detail) => ({
    ...detail,
    quantity: toJsonNumber(detail.quantity),
    rate: toJsonNumber(detail.rate),
    amount: toJsonNumber(detail.amount),
  })),
  other_charges: order.other_charges.map((charge) => ({ ...charge, amount: toJsonNumber(charge.amount) })),
  created_at: formatDateTime(order.created_at),
  updated_at: formatDateTime(order.updated_at),
  status_changed_at: formatDateTime(order.status_changed_at),
});
