import type { ConfirmSalesOrderBody, SalesOrder } from '@sales-order/contract';

import { checkConfirmable } from './order-confirmation.js';
import { changesOfTransition } from './order-history.js';
import { historyTotals } from './order-shapes.js';
import { runTransition, type TransitionRequest } from './order-transition.js';
import type { OrderDeps } from './order-use-case.js';
import { orderWriteStore } from './store/order-write-store.js';

/** draft -> confirmed, after the confirm's checks (order-confirmation.ts). */
export const confirmOrder = (
  deps: OrderDeps,
  id: number,
  body: ConfirmSalesOrderBody,
  request: TransitionRequest,
): Promise<SalesOrder> =>
  runTransition(deps, id, 'confirm', request, async (tx, order) => {
    const contents = await orderWriteStore.contentsOf(tx, id);
    const acknowledged = await checkConfirmable(tx, id, order, contents, body.acknowledge_warnings === true);
    return orderWriteStore.writeTransition(tx, id, 'confirmed', {
      action: 'confirm',
      actor: request.access.subject,
      changes: changesOfTransition(order.status, 'confirmed', historyTotals(order)),
      ...(acknowledged.length > 0 ? { acknowledgedWarnings: acknowledged } : {}),
    });
  });
