import {
  type FieldChange,
  type HistoryAction,
  HistoryActionSchema,
  type HistoryChanges,
  HistoryChangesSchema,
  type HistoryCharge,
  type HistoryLine,
  type HistoryTotals,
  type SalesOrderHistory,
} from '@sales-order/contract';

import { notFound } from '../errors/domain-error.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { Db } from '../master-data/master-data-repository.js';
import { formatCalendarDate, formatDateTime } from '../shared/calendar.js';
import { toJsonNumber } from '../shared/money.js';
import { orderHistoryRepository, type OrderState } from './order-history-repository.js';
import { orderReadRepository } from './order-read-repository.js';

/**
 * The audit trail of an order: each create, update and delete records one entry, inside the
 * transaction of the change, comparing the order before and after it.
 */

type Value = FieldChange['from'];

const headerOf = (state: OrderState): Record<string, Value> => ({
  sales_order_no: state.salesOrderNo,
  customer_id: state.customerId,
  sales_order_date: formatCalendarDate(state.salesOrderDate),
  location_id: state.locationId,
  financial_year_id: state.financialYearId,
  remarks: state.remarks,
});

const linesOf = (state: OrderState): HistoryLine[] =>
  state.details.map((line) => ({
    line_no: line.lineNo,
    product_id: line.productId,
    packsize_id: line.packsizeId,
    quantity: toJsonNumber(line.quantity),
    rate: toJsonNumber(line.rate),
    amount: toJsonNumber(line.amount),
    remarks: line.remarks,
  }));

const chargesOf = (state: OrderState): HistoryCharge[] =>
  state.otherCharges.map((charge) => ({
    line_no: charge.lineNo,
    description: charge.description,
    amount: toJsonNumber(charge.amount),
  }));

const totalsOf = (state: OrderState): HistoryTotals => ({
  subtotal: toJsonNumber(state.subtotal),
  other_charges_total: toJsonNumber(state.otherChargesTotal),
  grand_total: toJsonNumber(state.grandTotal),
});

/** The fields whose values differ between two records of the same shape. */
const fieldChanges = (before: Record<string, Value>, after: Record<string, Value>): FieldChange[] =>
  Object.keys(after)
    .filter((field) => (before[field] ?? null) !== after[field])
    .map((field) => ({ field, from: before[field] ?? null, to: after[field] ?? null }));

/** Lines or charges matched by line number: added, removed, and changed field by field. */
const itemChanges = <T extends { line_no: number }>(before: T[], after: T[]) => {
  const beforeByNo = new Map(before.map((item) => [item.line_no, item]));
  const afterByNo = new Map(after.map((item) => [item.line_no, item]));
  const changed = after.flatMap((item) => {
    const previous = beforeByNo.get(item.line_no);
    if (!previous) return [];
    const changes = fieldChanges(previous, item);
    return changes.length > 0 ? [{ line_no: item.line_no, changes }] : [];
  });
  return {
    added: after.filter((item) => !beforeByNo.has(item.line_no)),
    removed: before.filter((item) => !afterByNo.has(item.line_no)),
    changed,
  };
};

/** What changed from `before` (null: the order did not exist) to `after`. */
export const changesBetween = (before: OrderState | null, after: OrderState): HistoryChanges => ({
  fields: fieldChanges(before ? headerOf(before) : {}, headerOf(after)),
  lines: itemChanges(before ? linesOf(before) : [], linesOf(after)),
  other_charges: itemChanges(before ? chargesOf(before) : [], chargesOf(after)),
  totals_before: before ? totalsOf(before) : null,
  totals_after: totalsOf(after),
});

interface ChangeToRecord {
  orderId: number;
  action: HistoryAction;
  actor: string | null;
  /**
   * The order before the change (`stateOf` before writing); null on create; omitted when the
   * change touched nothing compared here (a delete only stamps deleted_at).
   */
  before?: OrderState | null;
}

/** Calls the order service makes inside its write transactions. */
export const orderHistory = {
  /** The order as it stands, deleted or not: read inside the transaction before and after it writes. */
  stateOf: async (tx: Db, orderId: number): Promise<OrderState> => {
    const state = await orderHistoryRepository.findState(tx, orderId);
    // The caller holds the order's row lock, so it exists.
    if (!state) throw new Error(`order ${orderId} vanished inside its own transaction`);
    return state;
  },

  /** Records the change the transaction just made, stamped with the order's new version and time. */
  record: async (tx: Db, { orderId, action, actor, before }: ChangeToRecord): Promise<void> => {
    const after = await orderHistory.stateOf(tx, orderId);
    await orderHistoryRepository.insert(tx, {
      salesOrderId: orderId,
      version: after.version,
      action,
      at: after.deletedAt ?? after.updatedAt,
      by: actor,
      changes: changesBetween(before === undefined ? after : before, after),
    });
  },
};

export const createOrderHistoryService = (prisma: PrismaClient) => ({
  /** Every entry of an order, deleted orders included; 404 only for an id never created. */
  async get(orderId: number): Promise<SalesOrderHistory> {
    const entries = await orderReadRepository.findHistory(prisma, orderId);
    if (!entries) throw notFound(`sales order ${orderId} not found`);
    return {
      sales_order_id: orderId,
      entries: entries.map((entry) => ({
        version: entry.version,
        action: HistoryActionSchema.parse(entry.action),
        at: formatDateTime(entry.at),
        by: entry.by,
        // Written by `record` in this shape; parsing keeps the type honest.
        changes: HistoryChangesSchema.parse(entry.changes),
      })),
    };
  },
});

export type OrderHistoryService = ReturnType<typeof createOrderHistoryService>;
