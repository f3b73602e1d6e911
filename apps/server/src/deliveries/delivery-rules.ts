import {
  DeliveryCode,
  type ErrorDetail,
  type FieldChange,
  type HistoryChanges,
  type HistoryTotals,
} from '@sales-order/contract';

import { Decimal, toDecimal } from '../shared/money.js';

/**
 * The rules of deliveries, without storage: how much a line may still take, which request rows
 * are refused, a delivery's number, and the history entry a delivery change writes on its order.
 * Every quantity is an exact decimal; nothing is rounded and there is no slack.
 */

/** An order line as the rules read it: quantities as decimal text. */
export interface LineQuantities {
  id: number;
  line_no: number;
  quantity: string;
  delivered_quantity: string;
  returned_quantity: string;
}

/** A row of a request: a line (of the order, or of a delivery) and a quantity. */
export interface QuantityRow {
  id: number;
  quantity: number | string;
}

/** A delivery's number: `{location code}-DN-{year}-` then the sequence, zero-padded to 5 digits (in SQL). */
export const deliveryNumberPrefix = (locationCode: string, year: number): string =>
  `${locationCode.toUpperCase()}-DN-${year}-`;

/** The most a line may hold delivered net of returns: its ordered quantity plus the tolerance. */
export const deliveryLimitOf = (quantity: string, tolerancePercent: string): Decimal =>
  toDecimal(quantity).times(toDecimal(tolerancePercent).dividedBy(100).plus(1));

/** What a line holds delivered net of returns. */
export const netDelivered = (line: Pick<LineQuantities, 'delivered_quantity' | 'returned_quantity'>): Decimal =>
  toDecimal(line.delivered_quantity).minus(toDecimal(line.returned_quantity));

/**
 * The refusals of a delivery's rows against the order's lines: a row of a line that is not the
 * order's (`unknown_order_line`), and a row that takes its line, with the rows before it in the
 * request, past its limit (`over_delivery`, saying how much the line could still take there).
 */
export const deliveryRowProblems = (
  lines: readonly LineQuantities[],
  rows: readonly QuantityRow[],
  tolerancePercent: string,
): ErrorDetail[] => {
  const byId = new Map(lines.map((line) => [line.id, line]));
  const taken = new Map<number, Decimal>();
  const problems: ErrorDetail[] = [];
  rows.forEach((row, index) => {
    const line = byId.get(row.id);
    if (!line) {
      problems.push({
        path: `lines.${index}.sales_order_detail_id`,
        message: `sales order line ${row.id} is not a line of this order`,
        code: DeliveryCode.unknownOrderLine,
      });
      return;
    }
    const before = taken.get(line.id) ?? netDelivered(line);
    const after = before.plus(toDecimal(row.quantity));
    taken.set(line.id, after);
    const limit = deliveryLimitOf(line.quantity, tolerancePercent);
    if (after.greaterThan(limit)) {
      const room = Decimal.max(limit.minus(before), 0);
      problems.push({
        path: `lines.${index}.quantity`,
        message:
          `line ${line.line_no} can take at most ${room.toFixed()} more here (ordered ${toDecimal(line.quantity).toFixed()}, ` +
          `delivered net of returns ${before.toFixed()}, tolerance ${toDecimal(tolerancePercent).toFixed()}%)`,
        code: DeliveryCode.overDelivery,
      });
    }
  });
  return problems;
};

/** The quantity of each line the rows name, rows of one line added up. */
export const quantitiesByLine = (rows: readonly QuantityRow[]): Map<number, Decimal> => {
  const sums = new Map<number, Decimal>();
  for (const row of rows) sums.set(row.id, (sums.get(row.id) ?? toDecimal(0)).plus(toDecimal(row.quantity)));
  return sums;
};

/**
 * The history entry's changes of a delivery change: the delivery's number as a field, and each
 * order line whose `field` (delivered_quantity or returned_quantity) moves by the quantities
 * given. The totals stay the order's. The store adds the delivery status when it changes.
 */
export const deliveryHistoryChanges = (
  deliveryNo: { from: string | null; to: string | null },
  lines: readonly (LineQuantities & { product_id?: number })[],
  field: 'delivered_quantity' | 'returned_quantity',
  moves: ReadonlyMap<number, Decimal>,
  totals: HistoryTotals,
): HistoryChanges => {
  const fields: FieldChange[] = [{ field: 'delivery_no', from: deliveryNo.from, to: deliveryNo.to }];
  const changed = lines.flatMap((line) => {
    const move = moves.get(line.id);
    if (!move || move.isZero()) return [];
    const from = toDecimal(line[field]);
    return [
      {
        line_no: line.line_no,
        changes: [{ field, from: from.toNumber(), to: from.plus(move).toNumber() }],
      },
    ];
  });
  const none = { added: [], removed: [], changed: [] };
  return {
    fields,
    lines: { added: [], removed: [], changed },
    other_charges: none,
    totals_before: totals,
    totals_after: totals,
  };
};
