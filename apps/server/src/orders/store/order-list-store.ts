import {
  LIST_TOTAL_CAP,
  type ListCursor,
  type ListSort,
  type SalesOrderStatus,
  sortKeyOf,
} from '@sales-order/contract';

import type { Db } from '../../db/transactions.js';
import { Prisma } from '../../generated/prisma/client.js';

/**
 * The order list in SQL: one statement for a page, one more for the optional total. The query
 * is built from Prisma.sql fragments (values always travel as parameters); every filter and sort
 * is backed by an index of the migration `list_history_and_indexes`.
 */

export interface OrderListFilter {
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

/** One order as the list reads it: decimals as NUMERIC text, so they are carried exactly. */
export interface OrderListRow {
  id: number;
  sales_order_no: string;
  customer_id: number;
  customer_name: string;
  sales_order_date: string;
  location_id: number;
  financial_year_id: number;
  subtotal: string;
  other_charges_total: string;
  grand_total: string;
  line_count: number;
  version: number;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  status: SalesOrderStatus;
  status_changed_at: Date;
  cancellation_reason: string | null;
  amended_from_id: number | null;
  field_officer_id: number | null;
  port_id: number | null;
  customer_reference: string | null;
  /** YYYY-MM-DD */
  delivery_date: string | null;
}

/** Escapes LIKE's wildcards and its escape character, so the text matches only itself. */
export const escapeLike = (value: string): string => value.replace(/[\\%_]/g, (char) => `\\${char}`);

const ilike = (column: Prisma.Sql, pattern: string) => Prisma.sql`${column} ILIKE ${pattern} ESCAPE '\\'`;

// Column names come from this fixed map, never from the request.
const SORT_COLUMNS = {
  sales_order_date: { column: Prisma.raw('so.sales_order_date'), cast: Prisma.raw('date') },
  updated_at: { column: Prisma.raw('so.updated_at'), cast: Prisma.raw('timestamptz') },
  grand_total: { column: Prisma.raw('so.grand_total'), cast: Prisma.raw('numeric') },
  sales_order_no: { column: Prisma.raw('so.sales_order_no'), cast: Prisma.raw('text') },
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
    where.push(Prisma.sql`so.id IN (
      SELECT id FROM sales_orders WHERE ${ilike(Prisma.raw('sales_order_no'), pattern)}
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

const whereClause = (conditions: Prisma.Sql[]) =>
  conditions.length === 0 ? Prisma.empty : Prisma.sql`WHERE ${Prisma.join(conditions, ' AND ')}`;

/** The page statement: filters, the keyset condition after `cursor`, the order, `limit` rows. */
export const pageQuery = (filter: OrderListFilter, sort: ListSort, cursor: ListCursor | undefined, limit: number) => {
  const { column, cast } = SORT_COLUMNS[sortKeyOf(sort)];
  const descending = sort.startsWith('-');
  const conditions = conditionsOf(filter);
  if (cursor) {
    // A row comparison on (key, id) is one range of the (key, id) index.
    const after = descending ? Prisma.raw('<') : Prisma.raw('>');
    conditions.push(Prisma.sql`(${column}, so.id) ${after} (${cursor.k}::${cast}, ${cursor.i})`);
  }
  const direction = descending ? Prisma.raw('DESC') : Prisma.raw('ASC');
  return Prisma.sql`
    SELECT so.id, so.sales_order_no, so.customer_id, c.name AS customer_name,
           to_char(so.sales_order_date, 'YYYY-MM-DD') AS sales_order_date,
           so.location_id, so.financial_year_id,
           so.subtotal::text AS subtotal, so.other_charges_total::text AS other_charges_total,
           so.grand_total::text AS grand_total,
           so.line_count,
           so.version, so.created_at, so.updated_at, so.deleted_at,
           so.status, so.status_changed_at, so.cancellation_reason, so.amended_from_id,
           so.field_officer_id, so.port_id, so.customer_reference,
           to_char(so.delivery_date, 'YYYY-MM-DD') AS delivery_date
    FROM sales_orders so
    JOIN customers c ON c.id = so.customer_id
    ${whereClause(conditions)}
    ORDER BY ${column} ${direction}, so.id ${direction}
    LIMIT ${limit}`;
};

/** Counts matching orders, stopping one past the cap so a huge result costs no more than the cap. */
export const countQuery = (filter: OrderListFilter) => Prisma.sql`
  SELECT count(*)::int AS count FROM (
    SELECT 1 FROM sales_orders so ${whereClause(conditionsOf(filter))} LIMIT ${LIST_TOTAL_CAP + 1}
  ) AS matching`;

export const orderListStore = {
  page: (db: Db, filter: OrderListFilter, sort: ListSort, cursor: ListCursor | undefined, limit: number) =>
    db.$queryRaw<OrderListRow[]>(pageQuery(filter, sort, cursor, limit)),

  count: async (db: Db, filter: OrderListFilter): Promise<number> => {
    const [row] = await db.$queryRaw<{ count: number }[]>(countQuery(filter));
    return row?.count ?? 0;
  },
};
