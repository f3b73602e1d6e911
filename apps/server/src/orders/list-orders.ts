import {
  encodeListCursor,
  LIST_TOTAL_CAP,
  type ListCursor,
  type ListSalesOrdersFilters,
  type SalesOrderListItem,
  type SalesOrderPage,
  sortKeyOf,
} from '@sales-order/contract';

import { formatDateTime } from '../shared/calendar.js';
import { toJsonNumber } from '../shared/money.js';
import type { OrderDeps } from './order-use-case.js';
import { type OrderListFilter, type OrderListRow, orderListStore } from './store/order-list-store.js';

const filterOf = (query: ListSalesOrdersFilters): OrderListFilter => ({
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
  includeDeleted: query.include_deleted ?? false,
});

const toListItem = (row: OrderListRow): SalesOrderListItem => ({
  sales_order_id: row.id,
  sales_order_no: row.sales_order_no,
  customer_id: row.customer_id,
  customer_name: row.customer_name,
  sales_order_date: row.sales_order_date,
  location_id: row.location_id,
  financial_year_id: row.financial_year_id,
  subtotal: toJsonNumber(row.subtotal),
  other_charges_total: toJsonNumber(row.other_charges_total),
  grand_total: toJsonNumber(row.grand_total),
  line_count: row.line_count,
  version: row.version,
  created_at: formatDateTime(row.created_at),
  updated_at: formatDateTime(row.updated_at),
  deleted_at: row.deleted_at ? formatDateTime(row.deleted_at) : null,
  status: row.status,
  status_changed_at: formatDateTime(row.status_changed_at),
  cancellation_reason: row.cancellation_reason,
  amended_from_id: row.amended_from_id,
  field_officer_id: row.field_officer_id,
  port_id: row.port_id,
  customer_reference: row.customer_reference,
  delivery_date: row.delivery_date,
});

const SORT_KEY_TEXT = {
  sales_order_date: (row: OrderListRow) => row.sales_order_date,
  updated_at: (row: OrderListRow) => row.updated_at.toISOString(),
  grand_total: (row: OrderListRow) => row.grand_total,
  sales_order_no: (row: OrderListRow) => row.sales_order_no,
} as const;

/** The cursor after `row`: its exact sort key (milliseconds, NUMERIC text) and its id. */
const cursorAfter = (sort: ListSalesOrdersFilters['sort'], row: OrderListRow): ListCursor =>
  // Each sort's key text has the shape ListCursorSchema expects for that sort.
  ({ s: sort, k: SORT_KEY_TEXT[sortKeyOf(sort)](row), i: row.id });

/**
 * Lists orders a keyset page at a time. A page is one statement, so it is a consistent
 * snapshot: never a row twice, never short of `limit` unless it is the last page. Reading one
 * row more than asked tells whether another page follows without counting.
 */
export const listOrders = async (
  { transactions }: OrderDeps,
  query: ListSalesOrdersFilters,
): Promise<SalesOrderPage> => {
  const filter = filterOf(query);
  const [rows, total] = await Promise.all([
    orderListStore.page(transactions.db, filter, query.sort, query.cursor, query.limit + 1),
    query.include_total ? orderListStore.count(transactions.db, filter) : undefined,
  ]);
  const items = rows.slice(0, query.limit);
  const last = items.at(-1);
  const page: SalesOrderPage = {
    items: items.map(toListItem),
    next_cursor: rows.length > query.limit && last ? encodeListCursor(cursorAfter(query.sort, last)) : null,
  };
  if (total === undefined) return page;
  return { ...page, total: Math.min(total, LIST_TOTAL_CAP), total_capped: total > LIST_TOTAL_CAP };
};
