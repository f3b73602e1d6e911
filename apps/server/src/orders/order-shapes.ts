import type {
  HistoryCharge,
  HistoryLine,
  HistoryTotals,
  OtherChargeInput,
  SalesOrder,
  SalesOrderDetailInput,
} from '@sales-order/contract';

import { type Decimal, toDecimal, toJsonNumber } from '../shared/money.js';
import type { OrderSnapshot } from './order-history.js';
import type { PricedLine } from './order-pricing.js';
import type { RenderedOrder } from './store/order-read-store.js';
import type { ChargeToStore, LineToStore, LockedOrder, StoredContents } from './store/order-write-store.js';

/**
 * Conversions between the contract's shapes, the rows the store reads and writes, and the
 * snapshots a history entry compares. Pure.
 */

/** Priced lines as their columns store them: each decimal's fixed text worked out once, for the insert and the history entry. */
export const linesToStore = (details: SalesOrderDetailInput[], priced: PricedLine[]): LineToStore[] =>
  priced.map((line, index) => {
    const detail = details[index]!;
    return {
      productId: detail.product_id,
      packsizeId: detail.packsize_id ?? null,
      quantity: line.quantity.toFixed(3),
      rate: line.rate.toFixed(4),
      amount: line.amount.toFixed(2),
      remarks: detail.remarks ?? null,
    };
  });

export const chargesToStore = (charges: OtherChargeInput[]): ChargeToStore[] =>
  charges.map((charge) => ({ description: charge.description, amount: toDecimal(charge.amount).toFixed(2) }));

/** Lines as a history entry shows them: the stored scale (numeric(18,3/4/2)), as JSON numbers. */
export const historyLines = (lines: LineToStore[]): HistoryLine[] =>
  lines.map((line, index) => ({
    line_no: index + 1,
    product_id: line.productId,
    packsize_id: line.packsizeId,
    quantity: toJsonNumber(line.quantity),
    rate: toJsonNumber(line.rate),
    amount: toJsonNumber(line.amount),
    remarks: line.remarks,
  }));

export const historyCharges = (charges: ChargeToStore[]): HistoryCharge[] =>
  charges.map((charge, index) => ({
    line_no: index + 1,
    description: charge.description,
    amount: toJsonNumber(charge.amount),
  }));

export interface OrderTotals {
  subtotal: Decimal;
  otherChargesTotal: Decimal;
  grandTotal: Decimal;
}

/** Totals as their columns store them (numeric(18,2)). */
export const totalsToStore = ({ subtotal, otherChargesTotal, grandTotal }: OrderTotals) => ({
  subtotal: subtotal.toFixed(2),
  otherChargesTotal: otherChargesTotal.toFixed(2),
  grandTotal: grandTotal.toFixed(2),
});

export const historyTotals = (totals: {
  subtotal: string;
  otherChargesTotal: string;
  grandTotal: string;
}): HistoryTotals => ({
  subtotal: toJsonNumber(totals.subtotal),
  other_charges_total: toJsonNumber(totals.otherChargesTotal),
  grand_total: toJsonNumber(totals.grandTotal),
});

/** A locked order's totals as a history entry shows them. */
export const lockedTotals = (order: LockedOrder): HistoryTotals =>
  historyTotals({
    subtotal: order.subtotal,
    otherChargesTotal: order.other_charges_total,
    grandTotal: order.grand_total,
  });

/** The state a locked order was in before a change, as its history entry compares it. */
export const snapshotBefore = (order: LockedOrder, contents: StoredContents): OrderSnapshot => ({
  header: {
    sales_order_no: order.sales_order_no,
    customer_id: order.customer_id,
    sales_order_date: order.sales_order_date,
    location_id: order.location_id,
    financial_year_id: order.financial_year_id,
    remarks: order.remarks,
    field_officer_id: order.field_officer_id,
    port_id: order.port_id,
    customer_reference: order.customer_reference,
    delivery_date: order.delivery_date,
  },
  lines: contents.lines.map((line) => ({
    ...line,
    quantity: toJsonNumber(line.quantity),
    rate: toJsonNumber(line.rate),
    amount: toJsonNumber(line.amount),
  })),
  charges: contents.charges.map((charge) => ({ ...charge, amount: toJsonNumber(charge.amount) })),
  totals: lockedTotals(order),
});

/**
 * A rendered order's fields, for the writes that answer with the order or compare it (the read
 * itself passes the text through). The text is the contract's shape already (order-read-shape.ts).
 */
export const toReadShape = (order: RenderedOrder): SalesOrder => order.json.parse();
