import type { SalesOrder } from '@sales-order/contract';

import { changesOfTransition } from './order-history.js';
import { historyTotals } from './order-history.js';
import { runTransition, type TransitionRequest } from './order-transition.js';
import type { OrderDeps } from './order-use-case.js';
import { orderWriteStore } from './store/order-write-store.js';

/**
 * confirmed -> closed: fulfilled and done (the host says so); read-only afterwards but for remarks.
 * Whatever is still pending on a line is short-closed (its `short_closed_quantity`), under the
 * order's lock, which every delivery takes first: a delivery racing the close comes before it
 * (and is short-closed less) or after it (and finds the order closed).
 */
export const closeOrder = (deps: OrderDeps, id: number, request: TransitionRequest): Promise<SalesOrder> =>
  runTransition(deps, id, 'close', request, async (tx, order) => {
    await orderWriteStore.shortClose(tx, id);
    return orderWriteStore.writeTransition(tx, id, 'closed', {
      action: 'close',
      actor: request.access.subject,
      changes: changesOfTransition(order.status, 'closed', historyTotals(order)),
    });
  });
