import {
  LIST_TOTAL_CAP,
  type ListCursor,
  type ListSort,
  type SalesOrderListItem,
  sortKeyOf,
} from '@sales-order/contract';

import { type Reader, readRows } from '../../db/transactions.js';
import { Prisma } from '../../generated/prisma/client.js';
import { JsonText } from '../../shared/json-text.js';
import { conditionsOf, type OrderListFilter, scopedWhere } from './order-filters.js';
import { jsonDate, jsonDateTime, jsonDecimal } from './order-read-shape.js';

/**
 * The order list in SQL: one statement for a page, one more for the optional total. The query
 * is built from Prisma.sql fragments (values always travel as parameters); every filter and sort
 * is backed by an index of the migration `list_history_and_indexes`. Which orders a filter
 * matches, in the caller's scope, is order-filters.ts (the reports use it too).
 */

export type { OrderListFilter } from './order-filters.js';

/**
 * A page as its statement returns it: the items in the contract's list item shape, rendered as
 * JSON by PostgreSQL and passed through unparsed (one JSON value for the page rather than 23
 * columns a row: decoding columns row by row, and then parsing and serialising the page, cost
 * the service most of a page's CPU), whether more items follow, and the last item's sort key as
 * the cursor carries it (exact: milliseconds, NUMERIC text) with its id.
 */
export interface OrderListPage {
  items: JsonText<SalesOrderListItem[]>;
  more: boolean;
  /** The key and id of the page's last item when the page is full, else null. */
  last: [key: string, id: number] | null;
}

// Column names come from this fixed map, never from the request. `text` is the key as a cursor
// carries it (ListCursorSchema's shape for the sort), from the page's row `p`.
const SORT_COLUMNS = {
  sales_order_date: {
    column: Prisma.raw('so.sales_order_date'),
    cast: Prisma.raw('date'),
    text: Prisma.raw(`to_char(p.sales_order_date, 'YYYY-MM-DD')`),
  },
  updated_at: {
    column: Prisma.raw('so.updated_at'),
    cast: Prisma.raw('timestamptz'),
    text: Prisma.raw(`to_char(p.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`),
  },
  grand_total: {
    column: Prisma.raw('so.grand_total'),
    cast: Prisma.raw('numeric'),
    text: Prisma.raw('p.grand_total::text'),
  },
  sales_order_no: {
    column: Prisma.raw('so.sales_order_no'),
    cast: Prisma.raw('text'),
    text: Prisma.raw('p.sales_order_no'),
  },
  delivery_status: {
    column: Prisma.raw('so.delivery_status'),
    cast: Prisma.raw('text'),
    text: Prisma.raw('p.delivery_status'),
  },
} as const;

/**
 * The page statement: filters, the keyset condition after `cursor`, the order, `limit` rows and
 * one more (which tells whether another page follows, without counting), aggregated into the
 * page's JSON and its last key. The rows come off a (key, id) index in order; the aggregates
 * order the at most 201 rows again themselves (no Sort node in the plan) and keep the first
 * `limit`. Items are rendered in the contract's list item shape and canonical JSON, like the
 * read shape (order-read-shape.ts).
 */
export const pageQuery = (filter: OrderListFilter, sort: ListSort, cursor: ListCursor | undefined, limit: number) => {
  const { column, cast, text } = SORT_COLUMNS[sortKeyOf(sort)];
  const descending = sort.startsWith('-');
  const conditions = conditionsOf(filter);
  if (cursor) {
    // A row comparison on (key, id) is one range of the (key, id) index.
    const after = descending ? Prisma.raw('<') : Prisma.raw('>');
    conditions.push(Prisma.sql`(${column}, so.id) ${after} (${cursor.k}::${cast}, ${cursor.i})`);
  }
  const direction = descending ? Prisma.raw('DESC') : Prisma.raw('ASC');
  const pageOrder = Prisma.sql`p.${Prisma.raw(sortKeyOf(sort))} ${direction}, p.id ${direction}`;
  return Prisma.sql`
    WITH p AS (
      SELECT so.*, c.name AS customer_name
      FROM sales_orders so
      JOIN customers c ON c.id = so.customer_id
      ${scopedWhere(filter.scope, conditions)}
      ORDER BY ${column} ${direction}, so.id ${direction}
      LIMIT ${limit + 1}::int)
    SELECT
      coalesce(array_to_json((array_agg(item ORDER BY ${pageOrder}))[1:${limit}::int]), '[]')::text AS items,
      count(*) > ${limit}::int AS more,
      (array_agg(${text} ORDER BY ${pageOrder}))[${limit}::int] AS last_key,
      (array_agg(p.id ORDER BY ${pageOrder}))[${limit}::int] AS last_id
    FROM p CROSS JOIN LATERAL (SELECT
      p.id AS sales_order_id, p.sales_order_no, p.customer_id, p.customer_name,
      ${jsonDate('p.sales_order_date')} AS sales_order_date, p.location_id, p.financial_year_id,
      ${jsonDecimal('p.subtotal')} AS subtotal, ${jsonDecimal('p.other_charges_total')} AS other_charges_total,
      ${jsonDecimal('p.grand_total')} AS grand_total, p.version,
      ${jsonDateTime('p.created_at')} AS created_at, ${jsonDateTime('p.updated_at')} AS updated_at,
      p.status, ${jsonDateTime('p.status_changed_at')} AS status_changed_at,
      p.cancellation_reason, p.amended_from_id, p.field_officer_id, p.port_id, p.customer_reference,
      p.remarks, ${jsonDate('p.delivery_date')} AS delivery_date, p.delivery_status, p.line_count,
      ${jsonDateTime('p.deleted_at')} AS deleted_at) item`;
};

/** Counts matching orders, stopping one past the cap so a huge result costs no more than the cap. */
export const countQuery = (filter: OrderListFilter) => Prisma.sql`
  SELECT count(*)::int AS count FROM (
    SELECT 1 FROM sales_orders so ${scopedWhere(filter.scope, conditionsOf(filter))} LIMIT ${LIST_TOTAL_CAP + 1}
  ) AS matching`;

export const orderListStore = {
  /** A page of at most `limit` items (the statement reads one more to know whether others follow). */
  page: async (
    db: Reader,
    filter: OrderListFilter,
    sort: ListSort,
    cursor: ListCursor | undefined,
    limit: number,
  ): Promise<OrderListPage> => {
    // An aggregate over no group by always returns its one row.
    const [page] = await readRows<{ items: string; more: boolean; last_key: string | null; last_id: number | null }>(
      db,
      pageQuery(filter, sort, cursor, limit),
    );
    const { items, more, last_key: key, last_id: id } = page!;
    return { items: new JsonText(items), more, last: key === null || id === null ? null : [key, id] };
  },

  count: async (db: Reader, filter: OrderListFilter): Promise<number> => {
    const [row] = await readRows<{ count: number }>(db, countQuery(filter));
    return row?.count ?? 0;
  },
};
