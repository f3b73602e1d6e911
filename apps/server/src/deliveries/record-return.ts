import { type Delivery, DeliveryCode, type ErrorDetail, type RecordReturnBody } from '@sales-order/contract';

import { stateConflict, unprocessable } from '../errors/domain-error.js';
import { historyTotals } from '../orders/order-history.js';
import { Decimal, toDecimal } from '../shared/money.js';
import { checkDate } from './delivery-dates.js';
import { deliveryHistoryChanges, quantitiesByLine } from './delivery-rules.js';
import type { DeliveryDeps, DeliveryWriteRequest } from './delivery-use-case.js';
import { lockDeliveryOrder } from './lock-delivery-order.js';
import type { LockedDelivery } from './store/delivery-store.js';
import { deliveryStore } from './store/delivery-store.js';

/**
 * POST /deliveries/{id}/returns: goods that came back against the delivery lines they left on, on
 * a confirmed or closed order. Each line takes back at most what it delivered less its earlier
 * returns (422 `return_exceeds_delivered`, rows of one line added up). On a confirmed order what
 * came back is pending again; on a closed one it is short-closed, so it stays off the licence.
 * Under the order's lock, as a cancel of the same delivery: one of the two comes first.
 */
export const recordReturn = (
  { transactions, today }: DeliveryDeps,
  deliveryId: number,
  body: RecordReturnBody,
  { access, expected, idempotency }: DeliveryWriteRequest,
): Promise<Delivery> =>
  transactions.withSqlTransaction(async (tx) => {
    await idempotency?.claim(tx);
    const { order, delivery, lines } = await lockDeliveryOrder(tx, deliveryId, access, expected);
    if (order.status !== 'confirmed' && order.status !== 'closed') {
      throw stateConflict(`The order is ${order.status}`, [
        {
          path: 'status',
          message: `a ${order.status} order takes no returns (only a confirmed or closed order does)`,
          code: DeliveryCode.orderNotDeliverable,
          current_status: order.status,
        },
      ]);
    }
    if (delivery.status !== 'recorded') {
      throw stateConflict('The delivery is cancelled', [
        {
          path: 'status',
          message: `delivery ${delivery.delivery_no} is cancelled: nothing of it can come back`,
          code: DeliveryCode.returnExceedsDelivered,
          current_status: delivery.status,
        },
      ]);
    }
    const deliveryDate = { date: delivery.delivery_date, name: 'the delivery date', code: DeliveryCode.dateOutOfRange };
    checkDate(body.return_date, 'return_date', deliveryDate, today());
    const problems = returnProblems(delivery, body.lines);
    if (problems.length > 0) throw unprocessable(problems, 'The return is refused');

    await deliveryStore.insertReturn(tx, {
      deliveryId,
      date: body.return_date,
      reason: body.reason,
      actor: access.subject,
      shortCloses: order.status === 'closed',
      lines: body.lines.map((line) => ({
        delivery_line_id: line.delivery_line_id,
        quantity: toDecimal(line.quantity).toFixed(),
      })),
    });
    const orderLineOf = new Map(delivery.lines.map((line) => [line.id, line.sales_order_detail_id]));
    const moves = quantitiesByLine(
      body.lines.map((line) => ({ id: orderLineOf.get(line.delivery_line_id)!, quantity: line.quantity })),
    );
    const { delivery: answer } = await deliveryStore.writeOrderChange(tx, {
      orderId: order.sales_order_id,
      deliveryId,
      action: 'return',
      event: 'delivery.returned',
      actor: access.subject,
      reason: body.reason,
      changes: deliveryHistoryChanges(
        { from: delivery.delivery_no, to: delivery.delivery_no },
        lines,
        'returned_quantity',
        moves,
        historyTotals(order),
      ),
    });
    await idempotency?.complete(tx, [answer]);
    return answer;
  });

/** Rows of lines that are not the delivery's, and rows that take back more than their line has left. */
const returnProblems = (delivery: LockedDelivery, rows: RecordReturnBody['lines']): ErrorDetail[] => {
  const byId = new Map(delivery.lines.map((line) => [line.id, line]));
  const taken = new Map<number, Decimal>();
  return rows.flatMap((row, index): ErrorDetail[] => {
    const line = byId.get(row.delivery_line_id);
    if (!line) {
      return [
        {
          path: `lines.${index}.delivery_line_id`,
          message: `delivery line ${row.delivery_line_id} is not a line of delivery ${delivery.delivery_no}`,
          code: DeliveryCode.unknownDeliveryLine,
        },
      ];
    }
    const before = taken.get(line.id) ?? toDecimal(line.returned_quantity);
    const after = before.plus(toDecimal(row.quantity));
    taken.set(line.id, after);
    if (!after.greaterThan(toDecimal(line.quantity))) return [];
    const left = Decimal.max(toDecimal(line.quantity).minus(before), 0);
    return [
      {
        path: `lines.${index}.quantity`,
        message: `at most ${left.toFixed()} of delivery line ${line.id} can still come back (delivered ${toDecimal(line.quantity).toFixed()})`,
        code: DeliveryCode.returnExceedsDelivered,
      },
    ];
  });
};
