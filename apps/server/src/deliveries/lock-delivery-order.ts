import type { AccessContext } from '../auth/access-context.js';
import { scopeOf } from '../auth/scope.js';
import type { SqlDb } from '../db/sql-db.js';
import { notFound } from '../errors/domain-error.js';
import { type Expected, lockAsExpected } from '../orders/order-preconditions.js';
import type { LockedOrder } from '../orders/store/order-write-store.js';
import { type DeliverableLine, deliveryStore, type LockedDelivery } from './store/delivery-store.js';

/**
 * The locks of a change of an existing delivery (a cancel, a return), in the order every writer of
 * an order takes them: the order's row (with If-Match checked: 412), its lines, then the
 * delivery's row, read again under them. 404 when the delivery is not in the caller's locations.
 */
export const lockDeliveryOrder = async (
  tx: SqlDb,
  deliveryId: number,
  access: AccessContext,
  expected: Expected,
): Promise<{
  order: LockedOrder & { sales_order_id: number };
  delivery: LockedDelivery;
  lines: DeliverableLine[];
}> => {
  const scope = scopeOf(access);
  const orderId = await deliveryStore.orderOf(tx, deliveryId, scope);
  if (orderId === null) throw notFound(`delivery ${deliveryId} not found`);
  const order = await lockAsExpected(tx, orderId, scope, expected);
  const lines = await deliveryStore.lockLines(tx, orderId);
  const delivery = await deliveryStore.lockDelivery(tx, deliveryId);
  // A delivery keeps its order for life; a deleted order's deliveries are not found with it.
  if (!delivery) throw notFound(`delivery ${deliveryId} not found`);
  return { order: { ...order, sales_order_id: orderId }, delivery, lines };
};
