import {
  LIST_TOTAL_CAP,
  type ListCursor,
  type ListSort,
  type SalesOrderListItem,
  type SalesOrderStatus,
  sortKeyOf,
} from '@sales-order/contract';

import type { LocationScope } from '../../auth/access-context.js';
import type { Db } from '../../db/transactions.js';
import { Prisma } from '../../generated/prisma/client.js';
import { ACROSS_LOCATIONS, inScope } from './order-scope.js';

/**
 * The order list in SQL: one statement for a page, one more for the optional total. The query
 * is built from Prisma.sql fragments (values always travel as parameters); every filter and sort
 * is backed by an index of the migration `list_history_and_indexes`.
 */

export interface OrderListFilter {
  /** The caller's locations: every statement of the list is bounded by them. */
  scope: LocationScope;
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
 * A page as its statement returns it: the items in the contract's shape, built in SQL (one JSON
 * value for the page rather than 23 columns a row: decoding columns row by row cost the service
 * most of a page's CPU), and each item's sort key as the cursor carries it (exact: milliseconds,
 * NUMERIC text) with its id, in the page's order. The statement reads one row more than asked,
 * so `items` may hold `limit + 1`.
 */
export interface OrderListPage {
  items: SalesOrderListItem[];
  keys: [key: string, id: number][];
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

/** The spec's DateTime (UTC, to the second) of an instant column of the page's row. */
const dateTime = (column: string) => Prisma.raw(`to_char(p.${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')`);

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
const inScopeWhere = (scope: LocationScope, conditions: Prisma.Sql[]) =>
  Prisma.sql`WHERE ${Prisma.join([inScope(scope, 'so.location_id'), ...conditions], ' AND ')}`;

/**
 * The page statement: filters, the keyset condition after `cursor`, the order, `limit` rows,
 * aggregated into the page's items and keys. The rows come off a (key, id) index in order; the
 * aggregates order the at most 201 rows again themselves (no Sort node in the plan).
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
      ${inScopeWhere(filter.scope, conditions)}
      ORDER BY ${column} ${direction}, so.id ${direction}
      LIMIT ${limit})
    SELECT
      coalesce(json_agg(json_build_object(
        'sales_order_id', p.id, 'sales_order_no', p.sales_order_no,
        'customer_id', p.customer_id, 'customer_name', p.customer_name,
        'sales_order_date', to_char(p.sales_order_date, 'YYYY-MM-DD'),
        'location_id', p.location_id, 'financial_year_id', p.financial_year_id,
        'subtotal', p.subtotal, 'other_charges_total', p.other_charges_total, 'grand_total', p.grand_total,
        'line_count', p.line_count, 'version', p.version,
        'created_at', ${dateTime('created_at')}, 'updated_at', ${dateTime('updated_at')},
        'deleted_at', ${dateTime('deleted_at')},
        'status', p.status, 'status_changed_at', ${dateTime('status_changed_at')},
        'cancellation_reason', p.cancellation_reason, 'amended_from_id', p.amended_from_id,
        'field_officer_id', p.field_officer_id, 'port_id', p.port_id,
        'customer_reference', p.customer_reference,
        'delivery_date', to_char(p.delivery_date, 'YYYY-MM-DD')) ORDER BY ${pageOrder}), '[]') AS items,
      coalesce(json_agg(json_build_array(${text}, p.id) ORDER BY ${pageOrder}), '[]') AS keys
    FROM p`;
};

/** Counts matching orders, stopping one past the cap so a huge result costs no more than the cap. */
export const countQuery = (filter: OrderListFilter) => Prisma.sql`
  SELECT count(*)::int AS count FROM (
    SELECT 1 FROM sales_orders so ${inScopeWhere(filter.scope, conditionsOf(filter))} LIMIT ${LIST_TOTAL_CAP + 1}
  ) AS matching`;

export const orderListStore = {
  page: async (
    db: Db,
    filter: OrderListFilter,
    sort: ListSort,
    cursor: ListCursor | undefined,
    limit: number,
  ): Promise<OrderListPage> => {
    // An aggregate over no table always returns its one row.
    const [page] = await db.$queryRaw<OrderListPage[]>(pageQuery(filter, sort, cursor, limit));
    return page!;
  },

  count: async (db: Db, filter: OrderListFilter): Promise<number> => {
    const [row] = await db.$queryRaw<{ count: number }[]>(countQuery(filter));
    return row?.count ?? 0;
  },
};
