import { type Delivery, type DeliveryPage, encodeDeliveryCursor } from '@sales-order/contract';

import type { AccessContext } from '../auth/access-context.js';
import { scopeOf } from '../auth/scope.js';
import { notFound } from '../errors/domain-error.js';
import type { DeliveryDeps, ListDeliveriesFilters } from './delivery-use-case.js';
import { deliveryStore } from './store/delivery-store.js';

/** GET /deliveries/{id}: a delivery of an order in the caller's locations (404 otherwise). */
export const getDelivery = async ({ transactions }: DeliveryDeps, access: AccessContext, id: number) => {
  const delivery = await deliveryStore.find(transactions.reader, id, scopeOf(access));
  if (!delivery) throw notFound(`delivery ${id} not found`);
  return delivery;
};

/** GET /deliveries: a keyset page, newest delivery date first, in the caller's locations. */
export const listDeliveries = async (
  { transactions }: DeliveryDeps,
  access: AccessContext,
  query: ListDeliveriesFilters,
): Promise<DeliveryPage> => {
  const page = await deliveryStore.page(
    transactions.reader,
    {
      scope: scopeOf(access),
      locationId: query.location_id,
      salesOrderId: query.sales_order_id,
      customerId: query.customer_id,
      status: query.status,
      dateFrom: query.delivery_date_from,
      dateTo: query.delivery_date_to,
      q: query.q,
      updatedSince: query.updated_since,
    },
    query.cursor,
    query.limit,
  );
  return { items: page.items, next_cursor: page.more && page.last ? encodeDeliveryCursor(page.last) : null };
};

/** GET /sales-orders/{id}/deliveries: every delivery of an order in the caller's locations, oldest first. */
export const listOrderDeliveries = async (
  { transactions }: DeliveryDeps,
  access: AccessContext,
  orderId: number,
): Promise<{ items: Delivery[] }> => {
  const items = await deliveryStore.ofOrder(transactions.reader, orderId, scopeOf(access));
  if (!items) throw notFound(`sales order ${orderId} not found`);
  return { items };
};
