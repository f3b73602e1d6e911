import type { SalesOrder } from '@sales-order/contract';

import { changesOfTransition } from './order-history.js';
import { historyTotals } from './order-history.js';
import { runTransition, type TransitionRequest } from './order-transition.js';
import type { OrderDeps } from './order-use-case.js';
import { orderWriteStore } from './store/order-write-store.js';

/** confirmed -> closed: fulfilled and done (the host says so); read-only afterwards but for remarks. */
export const closeOrder = (deps: OrderDeps, id: number, request: TransitionRequest): Promise<SalesOrder> =>
  runTransition(deps, id, 'close', request, async (tx, order) => {
    return orderWriteStore.writeTransition(tx, id, 'closed', {
      action: 'close',
      actor: request.access.subject,
      changes: changesOfTransition(order.status, 'closed', historyTotals(order)),
    });
  });
