import type { CancelSalesOrderBody, SalesOrder } from '@sales-order/contract';

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
    return orderWriteStore.writeTransition(tx, id, 'cancelled', {
      action: 'cancel',
      actor: request.access.subject,
      changes: changesOfTransition(order.status, 'cancelled', historyTotals(order), body.reason),
      reason: body.reason,
    });
  });
