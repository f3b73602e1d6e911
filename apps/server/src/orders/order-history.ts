import type {
  FieldChange,
  HistoryAction,
  HistoryChanges,
  HistoryCharge,
  HistoryLine,
  HistoryTotals,
  LicenceWarning,
  SalesOrderStatus,
} from '@sales-order/contract';

import { toJsonNumber } from '../shared/money.js';
import type { ChargeToWrite, LineToWrite, TotalsToWrite } from './order-columns.js';

/**
 * What a history entry says changed: pure. Each change of an order records one entry, inside
 * the transaction of the change (in the same statement as its last write), comparing the order
 * before and after it. The write paths know both states without reading the order back: the
 * state before comes from the statement that locks the order, the state after is what they
 * write (a new order's number excepted: its statement settles it, store/order-write-store.ts).
 * The write model (order-write-model.ts) builds each change's entry.
 */

type Value = FieldChange['from'];

/** An order as a history entry compares it: its header (a record of field values), numbers as the JSON numbers the API shows. */
export interface OrderSnapshot<Header extends Partial<Record<string, Value>>> {
  header: Header;
  lines: HistoryLine[];
  charges: HistoryCharge[];
  totals: HistoryTotals;
}

/** The fields whose values differ between two records of the same shape. */
const fieldChanges = (
  before: Record<string, Value | undefined>,
  after: Record<string, Value | undefined>,
): FieldChange[] =>
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
export const changesBetween = <Header extends Partial<Record<string, Value>>>(
  before: OrderSnapshot<Header> | null,
  after: OrderSnapshot<Header>,
): HistoryChanges => ({
  fields: fieldChanges(before?.header ?? {}, after.header),
  lines: itemChanges(before?.lines ?? [], after.lines),
  other_charges: itemChanges(before?.charges ?? [], after.charges),
  totals_before: before ? before.totals : null,
  totals_after: after.totals,
});

/**
 * What a transition changed: its status (and the reason a cancel gives); the lines, charges
 * and totals stay as they are.
 */
export const changesOfTransition = (
  from: SalesOrderStatus,
  to: SalesOrderStatus,
  totals: HistoryTotals,
  cancellationReason?: string,
): HistoryChanges => ({
  fields: fieldChanges(
    { status: from, cancellation_reason: null },
    { status: to, cancellation_reason: cancellationReason ?? null },
  ),
  lines: { added: [], removed: [], changed: [] },
  other_charges: { added: [], removed: [], changed: [] },
  totals_before: totals,
  totals_after: totals,
});

/** A history entry to write in the statement that completes a change. */
export interface HistoryEntryToWrite {
  action: HistoryAction;
  actor: string | null;
  changes: HistoryChanges;
  /** cancel: the reason given. */
  reason?: string;
  /** confirm with acknowledge_warnings: the warnings confirmed despite. */
  acknowledgedWarnings?: LicenceWarning[];
}

/**
 * Lines as a history entry shows them: the stored scale (numeric(18,3/4/2)), as JSON numbers.
 * Numbered 1.. in order, or by `lineNo` (a change keeps each line's own number).
 */
export const historyLines = <Line extends LineToWrite>(
  lines: readonly Line[],
  lineNo: (line: Line, index: number) => number = (_, index) => index + 1,
): HistoryLine[] =>
  lines.map((line, index) => ({
    line_no: lineNo(line, index),
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
