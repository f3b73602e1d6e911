import {
  LIST_TOTAL_CAP,
  type ListCursor,
  type ListSort,
  type SalesOrderListItem,
  type SalesOrderStatus,
  sortKeyOf,
} from '@sales-order/contract';

import type { Scope } from '../../auth/scope.js';
import { type Reader, readRows } from '../../db/transactions.js';
import { ACROSS_LOCATIONS, withinLocations } from '../../db/within-locations.js';
import { Prisma } from '../../generated/prisma/client.js';
import { JsonText } from '../../shared/json-text.js';
import { jsonDate, jsonDateTime, jsonDecimal } from './order-read-shape.js';

/**
 * The order list in SQL: one statement for a page, one more for the optional total. The query
 * is built from Prisma.sql fragments (values always travel as parameters); every filter and sort
 * is backed by an index of the migration `list_history_and_indexes`.
 */

export interface OrderListFilter {
  /** The caller's locations: every statement of the list is bounded by them. */
  scope: Scope;
  customerId?: number;
  locationId?: number;
  financialYearId?: number;
  dateFrom?: string;
  dateTo?: string;
  number?: string;
  numberPrefix?: string;
  q?: string;
  productId?: number;
  minTotal?: string;
  maxTotal?: string;
  updatedSince?: Date;
  statuses?: SalesOrderStatus[];
  includeDeleted: boolean;
}

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

/** Escapes LIKE's wildcards and its escape character, so the text matches only itself. */
export const escapeLike = (value: string): string => value.replace(/[\\%_]/g, (char) => `\\${char}`);

const ilike = (column: Prisma.Sql, pattern: string) => Prisma.sql`${column} ILIKE ${pattern} ESCAPE '\\'`;

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
} as const;

const conditionsOf = (filter: OrderListFilter): Prisma.Sql[] => {
  const where: Prisma.Sql[] = [];
  if (!filter.includeDeleted) where.push(Prisma.sql`so.deleted_at IS NULL`);
  if (filter.customerId !== undefined) where.push(Prisma.sql`so.customer_id = ${filter.customerId}`);
  if (filter.locationId !== undefined) where.push(Prisma.sql`so.location_id = ${filter.locationId}`);
  if (filter.financialYearId !== undefined) where.push(Prisma.sql`so.financial_year_id = ${filter.financialYearId}`);
  if (filter.dateFrom !== undefined) where.push(Prisma.sql`so.sales_order_date >= ${filter.dateFrom}::date`);
  if (filter.dateTo !== undefined) where.push(Prisma.sql`so.sales_order_date <= ${filter.dateTo}::date`);
  // ILIKE without wildcards is a case-insensitive equality the trigram index can answer.
  if (filter.number !== undefined) where.push(ilike(Prisma.raw('so.sales_order_no'), escapeLike(filter.number)));
  if (filter.numberPrefix !== undefined) {
    where.push(ilike(Prisma.raw('so.sales_order_no'), `${escapeLike(filter.numberPrefix)}%`));
  }
  if (filter.q !== undefined) {
    const pattern = `%${escapeLike(filter.q)}%`;
    // A union of three index-backed lookups: an OR across the join would defeat the indexes.
    // The ids it finds only narrow the scoped `so` of the outer statement.
    where.push(Prisma.sql`so.id IN (
      SELECT id FROM sales_orders WHERE ${ACROSS_LOCATIONS} AND ${ilike(Prisma.raw('sales_order_no'), pattern)}
      UNION SELECT id FROM sales_orders WHERE ${ilike(Prisma.raw('remarks'), pattern)}
      UNION SELECT id FROM sales_orders WHERE ${ilike(Prisma.raw('customer_reference'), pattern)}
      UNION SELECT o.id FROM sales_orders o JOIN customers c ON c.id = o.customer_id WHERE ${ilike(Prisma.raw('c.name'), pattern)})`);
  }
  if (filter.productId !== undefined) {
    where.push(
      Prisma.sql`so.id IN (SELECT d.sales_order_id FROM sales_order_details d WHERE d.product_id = ${filter.productId})`,
    );
  }
  if (filter.minTotal !== undefined) where.push(Prisma.sql`so.grand_total >= ${filter.minTotal}::numeric`);
  if (filter.maxTotal !== undefined) where.push(Prisma.sql`so.grand_total <= ${filter.maxTotal}::numeric`);
  if (filter.updatedSince !== undefined) where.push(Prisma.sql`so.updated_at >= ${filter.updatedSince}`);
  if (filter.statuses !== undefined) where.push(Prisma.sql`so.status = ANY(${filter.statuses}::text[])`);
  return where;
};

/** The WHERE of a list statement: the caller's scope first, then the filters. */
const scopedWhere = (scope: Scope, conditions: Prisma.Sql[]) =>
  Prisma.sql`WHERE ${Prisma.join([withinLocations(scope, 'so.location_id'), ...conditions], ' AND ')}`;

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
      p.remarks, ${jsonDate('p.delivery_date')} AS delivery_date, p.line_count,
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
