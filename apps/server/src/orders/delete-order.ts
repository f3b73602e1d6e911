import type { DeletedSalesOrder } from '@sales-order/contract';

import type { Actor } from './order.js';
import type { OrderDeps } from './order-use-case.js';
import { type ExpectedVersions, missingOrChanged } from './order-versions.js';
import { orderWriteStore } from './store/order-write-store.js';

/** Soft-deletes an order: one statement, its own transaction, with its history entry. */
export const deleteOrder = async (
  { transactions }: OrderDeps,
  id: number,
  actor: Actor,
  expected?: ExpectedVersions,
): Promise<DeletedSalesOrder> => {
  if (!(await orderWriteStore.softDelete(transactions.db, id, actor, expected)))
    throw await missingOrChanged(transactions.db, id, expected);
  return { sales_order_id: id, deleted: true };
};
