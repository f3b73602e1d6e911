import type { SalesOrder } from '@sales-order/contract';

import type { AccessContext } from '../auth/access-context.js';
import { notFound } from '../errors/domain-error.js';
import { toReadShape } from './order-shapes.js';
import type { OrderDeps } from './order-use-case.js';
import { orderReadStore } from './store/order-read-store.js';

/** One live order with its lines and charges: one statement. */
export const getOrder = async ({ transactions }: OrderDeps, access: AccessContext, id: number): Promise<SalesOrder> => {
  // An order outside the caller's scope is answered exactly as one that does not exist.
  const order = await orderReadStore.findLive(transactions.db, id, access.locations);
  if (!order) throw notFound(`sales order ${id} not found`);
  return toReadShape(order);
};
