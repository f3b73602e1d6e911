import type { OrderChangeList } from '@sales-order/contract';

import type { AccessContext } from '../auth/access-context.js';
import { scopeOf } from '../auth/scope.js';
import { notFound } from '../errors/domain-error.js';
import type { OrderDeps } from '../orders/order-use-case.js';
import { changeStore } from './store/change-store.js';

/** The change requests of a live order in the caller's scope, newest first (404 otherwise). */
export const listChanges = async (
  { transactions }: OrderDeps,
  access: AccessContext,
  id: number,
): Promise<OrderChangeList> => {
  const changes = await changeStore.list(transactions.db, id, scopeOf(access));
  if (!changes) throw notFound(`sales order ${id} not found`);
  return { changes };
};
