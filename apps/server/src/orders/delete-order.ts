import type { DeletedSalesOrder } from '@sales-order/contract';

import type { AccessContext } from '../auth/access-context.js';
import { scopeOf } from '../auth/scope.js';
import { stateConflict } from '../errors/domain-error.js';
import { deleteRefusal } from './order.js';
import { type Expected, lockAsExpected } from './order-preconditions.js';
import type { OrderDeps } from './order-use-case.js';
import { orderWriteStore } from './store/order-write-store.js';

/** Soft-deletes a draft, with its history entry: 404, 412 and 409 (not a draft) change nothing. */
export const deleteOrder = (
  { transactions }: OrderDeps,
  access: AccessContext,
  id: number,
  expected?: Expected,
): Promise<DeletedSalesOrder> =>
  transactions.withTransaction(async (tx) => {
    const current = await lockAsExpected(tx, id, scopeOf(access), expected);
    const refusal = deleteRefusal(current.status);
    if (refusal) throw stateConflict(`The order is ${current.status}`, [refusal]);
    await orderWriteStore.softDelete(tx, id, access.subject);
    return { sales_order_id: id, deleted: true };
  });
