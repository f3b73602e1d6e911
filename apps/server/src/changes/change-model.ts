import {
  ChangeCode,
  type ChangeDifference,
  type ChangeLine,
  DeliveryCode,
  type ErrorDetail,
  type HistoryChanges,
  MAX_DETAIL_LINES,
  type OpenChangeBody,
  type OtherChargeInput,
} from '@sales-order/contract';

import type { Checked } from '../errors/checked.js';
import type { ChargeToWrite, LineToWrite, TotalsToWrite } from '../orders/order-columns.js';
import { changesBetween, historyCharges, historyLines, historyTotals } from '../orders/order-history.js';
import { grandTotal, priceLines, totalCharges } from '../orders/order-pricing.js';
import { Decimal, sum, toDecimal, toJsonNumber } from '../shared/money.js';

/**
 * A change request's arithmetic, without storage: the order as the request would leave it,
 * the difference per line, the invariants on delivered quantities, and what the change adds to
 * what the order holds of each product's licence. Open previews with it, apply checks it again
 * against the order as it is then. Quantities and money are exact decimals throughout.
 */

/** A stored line of the order with what was delivered of it. */
export interface StoredLine extends LineToWrite {
  id: number;
  line_no: number;
  /** numeric(18,3) as text; the running totals a delivery keeps. */
  delivered_quantity: string;
  returned_quantity: string;
  short_closed_quantity: string;
  /** A delivery line names it (even one cancelled or returned since): it keeps its product and stays. */
  has_deliveries: boolean;
}

/** A line as the change leaves it: an existing one (id) or a new one (id null). */
export interface LineAfter extends LineToWrite {
  id: number | null;
}

/** What the change writes and answers. */
export interface ChangePlan {
  lines: LineAfter[];
  /** The ids of the lines removed. */
  removed: number[];
  /** The charges after the change; null when the request keeps them. */
  charges: ChargeToWrite[] | null;
  totals: TotalsToWrite;
  differences: ChangeDifference[];
  /** Per product, what the change adds to what the order holds (only increases), in first-appearance order. */
  increases: { product_id: number; quantity: string; requestIndex: number }[];
}

export const netDelivered = (line: Pick<StoredLine, 'delivered_quantity' | 'returned_quantity'>): Decimal =>
  toDecimal(line.delivered_quantity).minus(line.returned_quantity);

/** What a line holds of its product's licence on a confirmed order (the SQL rule licence_held_quantity). */
const heldBy = (line: LineToWrite, stored?: StoredLine): Decimal =>
  stored
    ? Decimal.max(toDecimal(line.quantity).minus(stored.short_closed_quantity), netDelivered(stored))
    : toDecimal(line.quantity);

const num = (value: string | null | undefined) => (value == null ? null : toJsonNumber(value));

/**
 * The order as the request leaves it, or the problems why it cannot: unknown or repeated line
 * ids, a quantity below what was delivered net of returns, a removal or product change of a
 * line with deliveries, lines out of range, a negative grand total, and a request that changes
 * nothing. Only the lines the request names are checked (references are the caller's, by
 * `references`' problems); paths are the request's (`details.{index}.quantity`).
 */
export const planChange = (
  request: Pick<OpenChangeBody, 'details' | 'other_charges'>,
  stored: { lines: StoredLine[]; charges: ChargeToWrite[]; totals: TotalsToWrite },
): Checked<ChangePlan> => {
  const requested = request.details ?? [];
  const byId = new Map(stored.lines.map((line) => [line.id, line]));
  const problems: ErrorDetail[] = [];
  const named = new Set<number>();
  requested.forEach((line, index) => {
    const id = line.sales_order_detail_id;
    if (id === undefined) return;
    if (!byId.has(id) || named.has(id)) {
      problems.push({
        path: `details.${index}.sales_order_detail_id`,
        message: `line ${id} ${byId.has(id) ? 'is named twice' : 'is not a line of this order'}`,
        code: DeliveryCode.unknownOrderLine,
      });
    }
    named.add(id);
  });
  requested.forEach((line, index) => {
    if (line.sales_order_detail_id !== undefined) return;
    const incomplete = (field: string, message: string) =>
      problems.push({ path: `details.${index}.${field}`, message, code: ChangeCode.newLineIncomplete });
    for (const field of ['product_id', 'quantity', 'rate'] as const) {
      if (line[field] === undefined) incomplete(field, `a new line (without sales_order_detail_id) needs ${field}`);
    }
    if (line.remove === true) incomplete('remove', 'remove needs the sales_order_detail_id of the line to remove');
  });
  if (problems.length > 0) return { value: emptyPlan(stored), problems };

  // Each requested line merged with what it changes: fields left out stay.
  const merged = requested.map((line) => {
    const before = line.sales_order_detail_id === undefined ? undefined : byId.get(line.sales_order_detail_id);
    return {
      before,
      remove: line.remove === true,
      product_id: line.product_id ?? before!.product_id,
      packsize_id: line.packsize_id === undefined ? (before?.packsize_id ?? null) : line.packsize_id,
      quantity: line.quantity ?? toJsonNumber(before!.quantity),
      rate: line.rate ?? toJsonNumber(before!.rate),
      remarks: line.remarks === undefined ? (before?.remarks ?? null) : line.remarks,
    };
  });
  const priced = priceLines(merged);
  problems.push(...priced.problems);

  merged.forEach((line, index) => {
    const { before } = line;
    if (!before) return;
    if (before.has_deliveries && (line.remove || line.product_id !== before.product_id)) {
      problems.push({
        path: `details.${index}.${line.remove ? 'remove' : 'product_id'}`,
        message: `line ${before.id} has deliveries: it cannot be ${line.remove ? 'removed' : 'given another product'}`,
        code: ChangeCode.lineHasDeliveries,
      });
    } else if (before.has_deliveries && line.packsize_id !== before.packsize_id) {
      problems.push({
        path: `details.${index}.packsize_id`,
        message: `line ${before.id} has deliveries: it cannot be given another pack size`,
        code: ChangeCode.lineHasDeliveries,
      });
    }
    const delivered = netDelivered(before);
    const quantity = toDecimal(priced.value.lines[index]!.quantity);
    // Only a quantity the change moves is held to it (a line delivered past its order keeps its own).
    if (!line.remove && !quantity.equals(before.quantity) && quantity.lessThan(delivered)) {
      problems.push({
        path: `details.${index}.quantity`,
        message: `line ${before.id}: quantity ${toDecimal(line.quantity).toFixed()} is below the ${delivered.toFixed()} delivered (net of returns)`,
        code: ChangeCode.quantityBelowDelivered,
      });
    }
  });

  const changedById = new Map<number, LineAfter>();
  const added: LineAfter[] = [];
  const removed: number[] = [];
  merged.forEach((line, index) => {
    const price = priced.value.lines[index]!;
    const after: LineAfter = {
      id: line.before?.id ?? null,
      product_id: line.product_id,
      packsize_id: line.packsize_id,
      quantity: price.quantity,
      rate: price.rate,
      amount: price.amount,
      remarks: line.remarks,
    };
    if (line.remove) removed.push(line.before!.id);
    else if (line.before) changedById.set(line.before.id, after);
    else added.push(after);
  });
  const lines: LineAfter[] = [
    ...stored.lines.flatMap((line) => {
      if (removed.includes(line.id)) return [];
      return [changedById.get(line.id) ?? { ...lineOf(line), id: line.id }];
    }),
    ...added,
  ];

  if (lines.length > MAX_DETAIL_LINES || lines.length === 0) {
    problems.push({
      path: 'details',
      message: `an order has 1 to ${MAX_DETAIL_LINES} lines; the change would leave ${lines.length}`,
      code: ChangeCode.lineCountOutOfRange,
    });
  }
  const subtotal = sum(lines.map((line) => toDecimal(line.amount)));
  const charges = request.other_charges ? chargesOf(request.other_charges) : null;
  const otherChargesTotal = request.other_charges
    ? totalCharges(request.other_charges)
    : toDecimal(stored.totals.other_charges_total);
  const total = grandTotal({ subtotal, otherChargesTotal });
  problems.push(...total.problems);
  const totals: TotalsToWrite = {
    subtotal: subtotal.toFixed(2),
    other_charges_total: otherChargesTotal.toFixed(2),
    grand_total: total.value.toFixed(2),
  };

  const differences = differencesOf(stored.lines, lines, removed);
  const chargesChange = charges !== null && !sameCharges(stored.charges, charges);
  if (problems.length === 0 && differences.length === 0 && !chargesChange) {
    problems.push({ path: '', message: 'the change changes nothing', code: ChangeCode.emptyChange });
  }
  return {
    value: { lines, removed, charges, totals, differences, increases: increasesOf(stored.lines, lines, merged) },
    problems,
  };
};

const emptyPlan = (stored: { lines: StoredLine[]; totals: TotalsToWrite }): ChangePlan => ({
  lines: stored.lines.map((line) => ({ ...lineOf(line), id: line.id })),
  removed: [],
  charges: null,
  totals: stored.totals,
  differences: [],
  increases: [],
});

const lineOf = ({ product_id, packsize_id, quantity, rate, amount, remarks }: LineToWrite): LineToWrite => ({
  product_id,
  packsize_id,
  quantity,
  rate,
  amount,
  remarks,
});

const chargesOf = (charges: OtherChargeInput[]): ChargeToWrite[] =>
  charges.map((charge) => ({ description: charge.description, amount: toDecimal(charge.amount).toFixed(2) }));

const sameCharges = (before: ChargeToWrite[], after: ChargeToWrite[]) =>
  before.length === after.length &&
  before.every(
    (charge, index) =>
      charge.description === after[index]!.description && toDecimal(charge.amount).equals(after[index]!.amount),
  );

const sameLine = (before: LineToWrite, after: LineToWrite) =>
  before.product_id === after.product_id &&
  before.packsize_id === after.packsize_id &&
  toDecimal(before.quantity).equals(after.quantity) &&
  toDecimal(before.rate).equals(after.rate) &&
  before.remarks === after.remarks;

/** Added, removed and changed lines, in the order's line order (added last). */
const differencesOf = (stored: StoredLine[], after: LineAfter[], removed: number[]): ChangeDifference[] => {
  const afterById = new Map(after.flatMap((line) => (line.id === null ? [] : [[line.id, line] as const])));
  const difference = (
    kind: ChangeDifference['kind'],
    before: StoredLine | undefined,
    line: LineToWrite | undefined,
    id: number | null,
  ): ChangeDifference => ({
    sales_order_detail_id: id,
    product_id: (line ?? before)!.product_id,
    kind,
    quantity_before: num(before?.quantity),
    quantity_after: num(line?.quantity),
    rate_before: num(before?.rate),
    rate_after: num(line?.rate),
    amount_before: num(before?.amount),
    amount_after: num(line?.amount),
    delivered_quantity: toJsonNumber(before ? netDelivered(before) : toDecimal(0)),
  });
  return [
    ...stored.flatMap((before) => {
      if (removed.includes(before.id)) return [difference('removed', before, undefined, before.id)];
      const line = afterById.get(before.id);
      return line && !sameLine(before, line) ? [difference('changed', before, line, before.id)] : [];
    }),
    ...after.filter((line) => line.id === null).map((line) => difference('added', undefined, line, null)),
  ];
};

/** Per product, what the lines after the change hold beyond what the stored lines hold: increases only. */
const increasesOf = (
  stored: StoredLine[],
  after: LineAfter[],
  merged: { product_id: number; before?: StoredLine }[],
): ChangePlan['increases'] => {
  const storedById = new Map(stored.map((line) => [line.id, line]));
  const held = new Map<number, Decimal>();
  const add = (productId: number, quantity: Decimal) =>
    held.set(productId, (held.get(productId) ?? toDecimal(0)).plus(quantity));
  for (const line of after) add(line.product_id, heldBy(line, line.id === null ? undefined : storedById.get(line.id)));
  for (const line of stored) add(line.product_id, heldBy(line, line).negated());
  const firstRequestIndex = (productId: number) => {
    const index = merged.findIndex((line) => line.product_id === productId);
    return index === -1 ? 0 : index;
  };
  return [...held]
    .filter(([, quantity]) => quantity.greaterThan(0))
    .map(([productId, quantity]) => ({
      product_id: productId,
      quantity: quantity.toFixed(),
      requestIndex: firstRequestIndex(productId),
    }));
};

/** The change as its history entry records it: lines matched by their stored line numbers (a new line numbered after the last). */
export const historyOfChange = (
  stored: { lines: StoredLine[]; charges: ChargeToWrite[]; totals: TotalsToWrite },
  plan: ChangePlan,
): HistoryChanges => {
  const lastLineNo = Math.max(0, ...stored.lines.map((line) => line.line_no));
  const lineNoOf = new Map(stored.lines.map((line) => [line.id, line.line_no]));
  let next = lastLineNo;
  return changesBetween(
    {
      header: {},
      lines: historyLines(stored.lines, (line) => line.line_no),
      charges: historyCharges(stored.charges),
      totals: historyTotals(stored.totals),
    },
    {
      header: {},
      lines: historyLines(plan.lines, (line) => (line.id === null ? (next += 1) : lineNoOf.get(line.id)!)),
      charges: historyCharges(plan.charges ?? stored.charges),
      totals: historyTotals(plan.totals),
    },
  );
};

/** The order after the change as a change answers it. */
export const previewOrder = (plan: ChangePlan, storedCharges: ChargeToWrite[]) => ({
  details: plan.lines.map((line): ChangeLine => ({
    sales_order_detail_id: line.id,
    product_id: line.product_id,
    packsize_id: line.packsize_id,
    quantity: toJsonNumber(line.quantity),
    rate: toJsonNumber(line.rate),
    amount: toJsonNumber(line.amount),
    remarks: line.remarks,
  })),
  other_charges: (plan.charges ?? storedCharges).map((charge) => ({
    description: charge.description,
    amount: toJsonNumber(charge.amount),
  })),
  ...totalsOf(plan.totals),
});

export const totalsOf = (totals: TotalsToWrite) => ({
  subtotal: toJsonNumber(totals.subtotal),
  other_charges_total: toJsonNumber(totals.other_charges_total),
  grand_total: toJsonNumber(totals.grand_total),
});
