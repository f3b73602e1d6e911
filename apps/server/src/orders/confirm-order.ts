import type { ConfirmSalesOrderBody, SalesOrder } from '@sales-order/contract';

import { confirmLocked } from './order-confirmation.js';
import { runTransition, type TransitionRequest } from './order-transition.js';
import type { OrderDeps } from './order-use-case.js';

/** draft -> confirmed, after the confirm's checks (order-confirmation.ts). */
export const confirmOrder = (
  deps: OrderDeps,
  id: number,
  body: ConfirmSalesOrderBody,
  request: TransitionRequest,
): Promise<SalesOrder> =>
  runTransition(deps, id, 'confirm', request, (tx, order) =>
    confirmLocked(tx, id, order, {
      acknowledgeWarnings: body.acknowledge_warnings === true,
      actor: request.access.subject,
      refusalEndsTransaction: true,
    }),
  );
