import type { AccessContext } from '../auth/access-context.js';
import { scopeOf } from '../auth/scope.js';
import { notFound } from '../errors/domain-error.js';
import type { OrderDeps } from './order-use-case.js';
import { orderReadStore, type RenderedOrder } from './store/order-read-store.js';

/**
 * One live order with its lines and charges: one statement, which renders the contract's read
 * shape; the text goes to the answer as PostgreSQL wrote it.
 */
export const getOrder = async (
  { transactions }: OrderDeps,
  access: AccessContext,
  id: number,
): Promise<RenderedOrder> => {
  // An order outside the caller's scope is answered exactly as one that does not exist.
  const order = await orderReadStore.findLive(transactions.reader, id, scopeOf(access));
  if (!order) throw notFound(`sales order ${id} not found`);
  return order;
};
