import type { OrderDeliveryStatus, SalesOrderStatus } from '@sales-order/contract';

import type { Scope } from '../../auth/scope.js';
import { ACROSS_LOCATIONS, withinLocations } from '../../db/within-locations.js';
import { Prisma } from '../../generated/prisma/client.js';

/**
 * Which orders a filter matches, in the caller's scope: the one definition of the order list's
 * filters (GET /sales-orders) and of a report's (GET /reports/sales), so that a report's totals
 * are what its caller would add up from its own list with the same filters. Conditions on the
 * alias `so` (sales_orders), values always as parameters.
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
  deliveryStatuses?: OrderDeliveryStatus[];
  includeDeleted: boolean;
}

/** Escapes LIKE's wildcards and its escape character, so the text matches only itself. */
export const escapeLike = (value: string): string => value.replace(/[\\%_]/g, (char) => `\\${char}`);

const ilike = (column: Prisma.Sql, pattern: string) => Prisma.sql`${column} ILIKE ${pattern} ESCAPE '\\'`;

export const conditionsOf = (filter: OrderListFilter): Prisma.Sql[] => {
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
  if (filter.deliveryStatuses !== undefined) {
    where.push(Prisma.sql`so.delivery_status = ANY(${filter.deliveryStatuses}::text[])`);
  }
  return where;
};

/** The WHERE of a list statement: the caller's scope first, then the filters. */
export const scopedWhere = (scope: Scope, conditions: Prisma.Sql[]) =>
  Prisma.sql`WHERE ${Prisma.join([withinLocations(scope, 'so.location_id'), ...conditions], ' AND ')}`;
