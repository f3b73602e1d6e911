import {
  encodeListCursor,
  LIST_TOTAL_CAP,
  ListCursorSchema,
  type ListSalesOrdersFilters,
  type OrderFilters,
  type SalesOrderPage,
} from '@sales-order/contract';

import type { AccessContext } from '../auth/access-context.js';
import { scopeOf } from '../auth/scope.js';
import { jsonObjectText, type JsonText } from '../shared/json-text.js';
import type { OrderDeps } from './order-use-case.js';
import { type OrderListFilter, orderListStore } from './store/order-list-store.js';

/**
 * The store's filter of a request's list filters, in the caller's scope: the list's, and a
 * report's (which takes a part of them, with the same meanings).
 */
export const orderFilterOf = (access: AccessContext, query: OrderFilters): OrderListFilter => ({
  scope: scopeOf(access),
  customerId: query.customer_id,
  locationId: query.location_id,
  financialYearId: query.year_id,
  dateFrom: query.date_from,
  dateTo: query.date_to,
  number: query.number,
  numberPrefix: query.number_prefix,
  q: query.q,
  productId: query.product_id,
  minTotal: query.min_total,
  maxTotal: query.max_total,
  updatedSince: query.updated_since,
  statuses: query.status,
  deliveryStatuses: query.delivery_status,
  includeDeleted: query.include_deleted ?? false,
});

/**
 * Lists orders a keyset page at a time. A page is one statement, so it is a consistent
 * snapshot: never a row twice, never short of `limit` unless it is the last page. The page's
 * items come rendered by the statement and go to the answer as its text.
 */
export const listOrders = async (
  { transactions }: OrderDeps,
  access: AccessContext,
  query: ListSalesOrdersFilters,
): Promise<JsonText<SalesOrderPage>> => {
  // The scope bounds every statement: items, total, search and cursor (a cursor is only a
  // position in the caller's own, scoped order).
  const filter = orderFilterOf(access, query);
  const [page, total] = await Promise.all([
    orderListStore.page(transactions.reader, filter, query.sort, query.cursor, query.limit),
    query.include_total ? orderListStore.count(transactions.reader, filter) : undefined,
  ]);
  // The key of the page's last item: the cursor of the next page, with the sort it belongs to.
  // The statement writes each sort's key in the shape its cursor has; parsing keeps that honest.
  const next =
    page.more && page.last
      ? encodeListCursor(ListCursorSchema.parse({ s: query.sort, k: page.last[0], i: page.last[1] }))
      : null;
  return jsonObjectText<SalesOrderPage>({
    items: page.items,
    next_cursor: next,
    total: total === undefined ? undefined : Math.min(total, LIST_TOTAL_CAP),
    total_capped: total === undefined ? undefined : total > LIST_TOTAL_CAP,
  });
};
