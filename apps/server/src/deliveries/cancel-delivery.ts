import { type CancelDeliveryBody, type Delivery, DeliveryCode, LifecycleCode } from '@sales-order/contract';

import { stateConflict } from '../errors/domain-error.js';
import { historyTotals } from '../orders/order-history.js';
import { toDecimal } from '../shared/money.js';
import { deliveryHistoryChanges, quantitiesByLine } from './delivery-rules.js';
import type { DeliveryDeps, DeliveryWriteRequest } from './delivery-use-case.js';
import { lockDeliveryOrder } from './lock-delivery-order.js';
import { deliveryStore } from './store/delivery-store.js';

/**
 * POST /deliveries/{id}/cancel: takes a recorded delivery back while its order is confirmed; its
 * quantities leave the order lines' delivered quantities. Under the order's lock (as every
 * delivery change): a second cancel finds it cancelled (409 `invalid_transition`, nothing
 * changes), a delivery with returns is 409 `delivery_has_returns`.
 */
export const cancelDelivery = (
  { transactions }: DeliveryDeps,
  deliveryId: number,
  body: CancelDeliveryBody,
  { access, expected, idempotency }: DeliveryWriteRequest,
): Promise<Delivery> =>
  transactions.withSqlTransaction(async (tx) => {
    await idempotency?.claim(tx);
    const { order, delivery, lines } = await lockDeliveryOrder(tx, deliveryId, access, expected);
    if (delivery.status !== 'recorded') {
      throw stateConflict('The delivery is cancelled', [
        {
          path: 'status',
          message: `delivery ${delivery.delivery_no} is already cancelled`,
          code: LifecycleCode.invalidTransition,
          current_status: delivery.status,
        },
      ]);
    }
    if (delivery.lines.some((line) => !toDecimal(line.returned_quantity).isZero())) {
      throw stateConflict('The delivery has returns', [
        {
          path: 'status',
          message: `goods came back against delivery ${delivery.delivery_no}: it cannot be cancelled`,
          code: DeliveryCode.deliveryHasReturns,
        },
      ]);
    }
    if (order.status !== 'confirmed') {
      throw stateConflict(`The order is ${order.status}`, [
        {
          path: 'status',
          message: `a delivery of a ${order.status} order cannot be cancelled (only of a confirmed order)`,
          code: DeliveryCode.orderNotDeliverable,
          current_status: order.status,
        },
      ]);
    }
    await deliveryStore.cancel(tx, deliveryId, body.reason, access.subject);
    const moves = quantitiesByLine(
      delivery.lines.map((line) => ({ id: line.sales_order_detail_id, quantity: `-${line.quantity}` })),
    );
    const { delivery: answer } = await deliveryStore.writeOrderChange(tx, {
      orderId: order.sales_order_id,
      deliveryId,
      action: 'cancel_delivery',
      event: 'delivery.cancelled',
      actor: access.subject,
      reason: body.reason,
      changes: deliveryHistoryChanges(
        { from: delivery.delivery_no, to: null },
        lines,
        'delivered_quantity',
        moves,
        historyTotals(order),
      ),
    });
    await idempotency?.complete(tx, [answer]);
    return answer;
  });
