import type { SalesOrder } from '@sales-order/contract';

import { notFound } from '../errors/domain-error.js';
import { toReadShape } from './order-shapes.js';
import type { OrderDeps } from './order-use-case.js';
import { orderReadStore } from './store/order-read-store.js';

/** One live order with its lines and charges: one statement. */
export const getOrder = async ({ transactions }: OrderDeps, id: number): Promise<SalesOrder> => {
  const order = await orderReadStore.findLive(transactions.db, id);
  if (!order) throw notFound(`sales order ${id} not found`);
  return toReadShape(order);
};
