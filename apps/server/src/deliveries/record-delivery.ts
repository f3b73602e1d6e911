import {
  type Delivery,
  DeliveryCode,
  type ErrorDetail,
  LicenceWarningCode,
  type RecordDeliveryBody,
  ValidationCode,
} from '@sales-order/contract';

import { scopeOf } from '../auth/scope.js';
import type { SqlDb } from '../db/sql-db.js';
import { stateConflict, unprocessable } from '../errors/domain-error.js';
import { licenceWarningsFor } from '../licences/licence-service.js';
import { historyTotals } from '../orders/order-history.js';
import { lockAsExpected } from '../orders/order-preconditions.js';
import { parseCalendarDate } from '../shared/calendar.js';
import { Decimal, toDecimal } from '../shared/money.js';
import { checkDate } from './delivery-dates.js';
import {
  deliveryHistoryChanges,
  deliveryNumberPrefix,
  deliveryRowProblems,
  netDelivered,
  quantitiesByLine,
} from './delivery-rules.js';
import type { DeliveryDeps, DeliveryWriteRequest } from './delivery-use-case.js';
import { type DeliverableLine, deliveryStore } from './store/delivery-store.js';

/**
 * POST /sales-orders/{id}/deliveries. One transaction: claims the Idempotency-Key, locks the
 * order (404, 412 on If-Match) and then its lines, in the order every writer of an order takes
 * them, so that deliveries, a close and a cancel of one order run one after another; refuses
 * an order that is not confirmed (409), a date outside the order date..today (422), rows of
 * other orders' lines and rows that take a line past its limit (422, every row of the request
 * counted), and a delivery past a limited licence (422, only possible with a tolerance); then
 * numbers and writes the delivery, the lines' delivered quantities, the order's new version,
 * history entry and the event.
 */
export const recordDelivery = (
  { transactions, tolerancePercent, today }: DeliveryDeps,
  orderId: number,
  body: RecordDeliveryBody,
  { access, expected, idempotency }: DeliveryWriteRequest,
): Promise<Delivery> =>
  transactions.withSqlTransaction(async (tx) => {
    await idempotency?.claim(tx);
    const order = await lockAsExpected(tx, orderId, scopeOf(access), expected);
    if (order.status !== 'confirmed') {
      throw stateConflict(`The order is ${order.status}`, [
        {
          path: 'status',
          message: `a ${order.status} order takes no deliveries (only a confirmed order does)`,
          code: DeliveryCode.orderNotDeliverable,
          current_status: order.status,
        },
      ]);
    }
    const orderDate = {
      date: order.sales_order_date,
      name: 'the order date',
      code: ValidationCode.deliveryBeforeOrderDate,
    };
    checkDate(body.delivery_date, 'delivery_date', orderDate, today());
    const { lines, series } = await deliveryStore.lockLinesWithSeries(
      tx,
      orderId,
      order.location_id,
      body.delivery_date,
    );
    const rows = body.lines.map((line) => ({ id: line.sales_order_detail_id, quantity: line.quantity }));
    const problems = deliveryRowProblems(lines, rows, tolerancePercent);
    if (problems.length > 0) throw unprocessable(problems, 'The delivery is refused');
    await checkLicences(tx, order.sales_order_date, orderId, lines, rows);

    if (!series) {
      throw unprocessable([
        {
          path: 'delivery_date',
          message: `no financial year holds ${body.delivery_date}`,
          code: ValidationCode.dateOutsideFinancialYears,
        },
      ]);
    }
    const created = await deliveryStore.insertDelivery(tx, {
      orderId,
      locationId: order.location_id,
      series,
      prefix: deliveryNumberPrefix(series.location_code, series.year),
      date: body.delivery_date,
      reference: body.reference ?? null,
      remarks: body.remarks ?? null,
      actor: access.subject,
      lines: body.lines.map((line, index) => ({
        line_no: index + 1,
        sales_order_detail_id: line.sales_order_detail_id,
        quantity: toDecimal(line.quantity).toFixed(),
      })),
    });
    const { delivery } = await deliveryStore.writeOrderChange(tx, {
      orderId,
      deliveryId: created.id,
      action: 'deliver',
      event: 'delivery.recorded',
      actor: access.subject,
      reason: null,
      changes: deliveryHistoryChanges(
        { from: null, to: created.delivery_no },
        lines,
        'delivered_quantity',
        quantitiesByLine(rows),
        historyTotals(order),
      ),
    });
    await idempotency?.complete(tx, [delivery]);
    return delivery;
  });

/**
 * What a line holds of its product's licence once delivered: the larger of ordered (less what a
 * close short-closed) and delivered net of returns (licence_held_quantity, the one rule).
 */
const heldAfter = (line: DeliverableLine, moved: Decimal | undefined): Decimal =>
  Decimal.max(
    toDecimal(line.quantity).minus(toDecimal(line.short_closed_quantity)),
    netDelivered(line).plus(moved ?? 0),
  );

/**
 * A delivery takes a line past its ordered quantity only with a tolerance, and only then holds
 * more of a licence than the confirm did: for each product whose lines then hold more, the
 * order's new holding of it is checked against what its limited licence has left for this
 * order (under the quota locks, as a confirm takes them, after the order's lock). Past it is
 * 422 `quantity_exceeds_licence`, with no override.
 */
const checkLicences = async (
  db: SqlDb,
  orderDate: string,
  orderId: number,
  lines: readonly DeliverableLine[],
  rows: readonly { id: number; quantity: number }[],
): Promise<void> => {
  const moved = quantitiesByLine(rows);
  const growing = new Set(
    lines
      .filter((line) => heldAfter(line, moved.get(line.id)).greaterThan(heldAfter(line, undefined)))
      .map((line) => line.product_id),
  );
  if (growing.size === 0) return;
  const held = lines
    .filter((line) => growing.has(line.product_id))
    .map((line) => ({ product_id: line.product_id, quantity: heldAfter(line, moved.get(line.id)).toFixed() }));
  const { value: warnings } = await licenceWarningsFor(db, held, parseCalendarDate(orderDate), orderId, 'lines', true);
  const refusals: ErrorDetail[] = warnings
    .filter((warning) => warning.code === LicenceWarningCode.quantityExceedsLicence)
    .map((warning) => {
      const row = rows.findIndex(
        (each) => lines.find((line) => line.id === each.id)?.product_id === warning.product_id,
      );
      return { path: `lines.${row}.quantity`, message: warning.message, code: warning.code };
    });
  if (refusals.length > 0) throw unprocessable(refusals, 'The delivery would exceed a licence');
};
