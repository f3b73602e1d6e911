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
import { orderHistoryRepository } from './order-history-repository.js';

/**
 * The audit trail of an order: each create, update and delete records one entry, inside the
 * transaction of the change (in the same statement as its last write), comparing the order
 * before and after it. The write paths know both states without reading the order back: the
 * state before comes from the statement that locks the order, the state after is what they
 * write.
 */

type Value = FieldChange['from'];

/** The header fields a history entry compares, in the order they are listed. */
// A type alias, not an interface: it is compared as a Record of field values.
export type OrderHeader = {
  sales_order_no: string;
  customer_id: number;
  /** YYYY-MM-DD */
  sales_order_date: string;
  location_id: number;
  financial_year_id: number;
  remarks: string | null;
};

/** An order as a history entry compares it: numbers as the JSON numbers the API shows. */
export interface OrderSnapshot {
  header: OrderHeader;
  lines: HistoryLine[];
  charges: HistoryCharge[];
  totals: HistoryTotals;
}

/**
 * Where a create's entry holds the order's number: `sales_order_no` is the first header field
 * and never null, so it is the first field change. A server-numbered create takes its number
 * in the statement that writes the entry, which puts the number there (docs/decisions.md).
 */
export const CREATED_NUMBER_PATH = ['fields', '0', 'to'] as const;

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
export const changesBetween = (before: OrderSnapshot | null, after: OrderSnapshot): HistoryChanges => ({
  fields: fieldChanges(before?.header ?? {}, after.header),
  lines: itemChanges(before?.lines ?? [], after.lines),
  other_charges: itemChanges(before?.charges ?? [], after.charges),
  totals_before: before ? before.totals : null,
  totals_after: after.totals,
});

/** A history entry to write in the statement that completes a change. */
export interface HistoryEntryToWrite {
  action: HistoryAction;
  actor: string | null;
  changes: HistoryChanges;
}

export const createOrderHistoryService = (prisma: PrismaClient) => ({
  /** Every entry of an order, deleted orders included; 404 only for an id never created. */
  async get(orderId: number): Promise<SalesOrderHistory> {
    const found = await orderHistoryRepository.entries(prisma, orderId);
    if (!found.exists) throw notFound(`sales order ${orderId} not found`);
    return {
      sales_order_id: orderId,
      entries: found.entries.map((entry) => ({
        version: entry.version,
        action: HistoryActionSchema.parse(entry.action),
        at: entry.at,
        by: entry.by,
        // Written by the order's write paths in this shape; parsing keeps the type honest.
        changes: HistoryChangesSchema.parse(entry.changes),
      })),
    };
  },
});

export type OrderHistoryService = ReturnType<typeof createOrderHistoryService>;
