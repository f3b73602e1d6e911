import {
  HistoryActionSchema,
  HistoryChangesSchema,
  LicenceWarningSchema,
  type SalesOrderHistory,
} from '@sales-order/contract';
import { z } from 'zod';

import { notFound } from '../errors/domain-error.js';
import type { OrderDeps } from './order-use-case.js';
import { orderHistoryStore } from './store/order-history-store.js';

/** Every history entry of an order, deleted orders included; 404 only for an id never created. */
export const getOrderHistory = async ({ transactions }: OrderDeps, orderId: number): Promise<SalesOrderHistory> => {
  const found = await orderHistoryStore.entries(transactions.db, orderId);
  if (!found.exists) throw notFound(`sales order ${orderId} not found`);
  return {
    sales_order_id: orderId,
    entries: found.entries.map((entry) => ({
      version: entry.version,
      action: HistoryActionSchema.parse(entry.action),
      at: entry.at,
      by: entry.by,
      // Written by the order's write paths in these shapes; parsing keeps the types honest.
      changes: HistoryChangesSchema.parse(entry.changes),
      ...(entry.reason === null ? {} : { reason: entry.reason }),
      ...(entry.acknowledged_warnings === null
        ? {}
        : { acknowledged_warnings: z.array(LicenceWarningSchema).parse(entry.acknowledged_warnings) }),
    })),
  };
};
