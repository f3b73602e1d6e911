import {
  encodeHistoryCursor,
  HISTORY_LIMIT_DEFAULT,
  HISTORY_PAGE_MAX_BYTES,
  HistoryActionSchema,
  HistoryChangesSchema,
  LicenceWarningSchema,
  type SalesOrderHistory,
} from '@sales-order/contract';
import { z } from 'zod';

import type { AccessContext } from '../auth/access-context.js';
import { scopeOf } from '../auth/scope.js';
import { notFound } from '../errors/domain-error.js';
import type { OrderDeps } from './order-use-case.js';
import { orderHistoryStore } from './store/order-history-store.js';

export interface HistoryPageRequest {
  /** Entries per page (default HISTORY_LIMIT_DEFAULT). */
  limit?: number;
  /** The version the previous page ended with (its decoded cursor). */
  after?: number;
}

/**
 * A page of an order's history, oldest first, deleted orders included; 404 only for an id never
 * created. Pages are bounded in entries and in bytes (HISTORY_PAGE_MAX_BYTES of changes), so a
 * large order's long history never builds one huge answer.
 */
export const getOrderHistory = async (
  { transactions }: OrderDeps,
  access: AccessContext,
  orderId: number,
  { limit = HISTORY_LIMIT_DEFAULT, after = 0 }: HistoryPageRequest = {},
): Promise<SalesOrderHistory> => {
  const found = await orderHistoryStore.page(transactions.db, orderId, scopeOf(access), {
    after,
    limit,
    maxBytes: HISTORY_PAGE_MAX_BYTES,
  });
  if (!found.exists) throw notFound(`sales order ${orderId} not found`);
  const last = found.entries.at(-1);
  return {
    sales_order_id: orderId,
    next_cursor: found.more && last ? encodeHistoryCursor(last.version) : null,
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
