import { type CancelSalesOrderBody, DeliveryCode, type SalesOrder } from '@sales-order/contract';

import { stateConflict } from '../errors/domain-error.js';
import { changesOfTransition } from './order-history.js';
import { historyTotals } from './order-history.js';
import { runTransition, type TransitionRequest } from './order-transition.js';
import type { OrderDeps } from './order-use-case.js';
import { orderWriteStore } from './store/order-write-store.js';

/** draft or confirmed -> cancelled, with a reason; the order keeps its number and its licence quota is released. */
export const cancelOrder = (
  deps: OrderDeps,
  id: number,
  body: CancelSalesOrderBody,
  request: TransitionRequest,
): Promise<SalesOrder> =>
  runTransition(deps, id, 'cancel', request, async (tx, order) => {
    // Under the order's lock, which deliveries and returns take first: what is delivered stays so.
    if (await orderWriteStore.hasNetDeliveries(tx, id)) {
      const message = 'goods were delivered against this order (net of returns): take them back first';
      throw stateConflict('The order has deliveries', [
        { path: 'status', message, code: DeliveryCode.orderHasDeliveries, current_status: order.status },
      ]);
    }
    return orderWriteStore.writeTransition(tx, id, 'cancelled', {
      action: 'cancel',
      actor: request.access.subject,
      changes: changesOfTransition(order.status, 'cancelled', historyTotals(order), body.reason),
      reason: body.reason,
    });
  });
