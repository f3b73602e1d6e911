import type { OrderChange } from '@sales-order/contract';

import type { AccessContext } from '../auth/access-context.js';
import type { OrderDeps } from '../orders/order-use-case.js';
import { lockOpenChange } from './apply-change.js';
import { changeStore } from './store/change-store.js';

/** Ends an open change without applying it (409 when it is no longer open); the order does not change. */
export const discardChange = (
  { transactions }: OrderDeps,
  access: AccessContext,
  id: number,
  changeId: number,
): Promise<OrderChange> =>
  transactions.withTransaction(async (tx) => {
    await lockOpenChange(tx, access, id, changeId);
    return changeStore.end(tx, changeId, access.subject, { status: 'discarded' });
  });
