import type { MaxNumber, SalesOrder } from '@sales-order/contract';

import type { LocationScope } from '../../auth/access-context.js';
import type { Db } from '../../db/transactions.js';
import { Prisma } from '../../generated/prisma/client.js';
import { inScope } from './order-scope.js';

/**
 * The order reads in raw SQL, one statement each whatever the line count: `$queryRaw` is sent
 * as written (no Prisma query-plan compilation), and every decimal is cast to text inside the
 * statement, so no JSON number or float ever holds one. Columns are named after the contract's
 * fields, so the rows below are the contract's shapes with decimals as NUMERIC text.
 */

type Line = SalesOrder['details'][number];
type Charge = SalesOrder['other_charges'][number];
type AsText<T, K extends keyof T> = Omit<T, K> & Record<K, string>;

/** One live order as its read statement returns it; timestamps are instants, formatted by the service. */
export type OrderReadRow = Omit<
  AsText<SalesOrder, 'subtotal' | 'other_charges_total' | 'grand_total'>,
  'details' | 'other_charges' | 'created_at' | 'updated_at' | 'status_changed_at'
> & {
  details: AsText<Line, 'quantity' | 'rate' | 'amount'>[];
  other_charges: AsText<Charge, 'amount'>[];
  created_at: Date;
  updated_at: Date;
  status_changed_at: Date;
};

/** A series as max-number reads it: null fields when the location or the year does not exist. */
export interface SeriesReadRow {
  location_id: MaxNumber['location_id'] | null;
  location_code: string | null;
  year_id: MaxNumber['year_id'] | null;
  year_start: string | null;
  max_sales_order_number: MaxNumber['max_sales_order_number'];
  /** The series' counter as text (BIGINT); '0' before its first number. */
  last_sequence: string;
}

/**
 * A line and a charge as the read statement packs them: JSON arrays in this order rather than
 * objects. Without a key per field the JSON is about half the size, and PostgreSQL builds it and
 * the service parses it in about half the time per line (docs/performance.md, "Reads").
 */
type LineTuple = [
  sales_order_detail_id: Line['sales_order_detail_id'],
  product_id: Line['product_id'],
  product_name: Line['product_name'],
  packsize_id: Line['packsize_id'],
  quantity: string,
  rate: string,
  amount: string,
  remarks: Line['remarks'],
];
type ChargeTuple = [other_charge_id: Charge['other_charge_id'], description: Charge['description'], amount: string];
type PackedOrderRow = Omit<OrderReadRow, 'details' | 'other_charges'> & {
  details: LineTuple[];
  other_charges: ChargeTuple[];
};

export const orderReadStore = {
  /**
   * A live (not deleted) order with its customer name, lines with product names, and charges.
   * The order of lines and charges comes from the aggregate's own ORDER BY, which PostgreSQL
   * guarantees (a sorted subquery's order it does not).
   */
  findLive: async (db: Db, id: number, scope: LocationScope): Promise<OrderReadRow | null> => {
    const [row] = await db.$queryRaw<PackedOrderRow[]>`
      SELECT o.id AS sales_order_id, o.sales_order_no, o.customer_id, c.name AS customer_name,
             to_char(o.sales_order_date, 'YYYY-MM-DD') AS sales_order_date,
             o.location_id, o.financial_year_id,
             o.subtotal::text AS subtotal, o.other_charges_total::text AS other_charges_total,
             o.grand_total::text AS grand_total, o.remarks,
             COALESCE((
               SELECT json_agg(json_build_array(d.id, d.product_id, p.name, d.packsize_id,
                                                d.quantity::text, d.rate::text, d.amount::text, d.remarks)
                               ORDER BY d.line_no)
               FROM sales_order_details d JOIN products p ON p.id = d.product_id
               WHERE d.sales_order_id = o.id), '[]') AS details,
             COALESCE((
               SELECT json_agg(json_build_array(ch.id, ch.description, ch.amount::text) ORDER BY ch.line_no)
               FROM sales_order_other_charges ch
               WHERE ch.sales_order_id = o.id), '[]') AS other_charges,
             o.version, o.created_at, o.updated_at, o.created_by, o.updated_by,
             o.status, o.status_changed_at, o.cancellation_reason, o.amended_from_id,
             o.field_officer_id, fo.name AS field_officer_name, o.port_id, pt.name AS port_name,
             o.customer_reference, to_char(o.delivery_date, 'YYYY-MM-DD') AS delivery_date
      FROM sales_orders o JOIN customers c ON c.id = o.customer_id
      LEFT JOIN field_officers fo ON fo.id = o.field_officer_id
      LEFT JOIN ports pt ON pt.id = o.port_id
      WHERE o.id = ${id} AND o.deleted_at IS NULL AND ${inScope(scope, 'o.location_id')}`;
    if (!row) return null;
    return {
      ...row,
      details: row.details.map(
        ([sales_order_detail_id, product_id, product_name, packsize_id, quantity, rate, amount, remarks]) => ({
          sales_order_detail_id,
          product_id,
          product_name,
          packsize_id,
          quantity,
          rate,
          amount,
          remarks,
        }),
      ),
      other_charges: row.other_charges.map(([other_charge_id, description, amount]) => ({
        other_charge_id,
        description,
        amount,
      })),
    };
  },

  /**
   * A series for max-number in one statement: the location's code, the year's start, the
   * number with the highest sequence (deleted orders included, free-form numbers, which carry no
   * sequence, excluded) and the counter. The highest sequence is read backwards off the index
   * (location_id, financial_year_id, sequence): a one-row index scan, never a sort of the series.
   * Plain `DESC` (NULLS FIRST) is the index read backwards; `DESC NULLS LAST`, which Prisma's
   * `orderBy` sends, matches no index and sorts the whole series.
   */
  findSeries: async (
    db: Db,
    locationId: number,
    financialYearId: number,
    scope: LocationScope,
  ): Promise<SeriesReadRow> => {
    const [row] = await db.$queryRaw<SeriesReadRow[]>`${seriesQuery(locationId, financialYearId, scope)}`;
    // The statement selects from no table at the top, so it always returns its one row.
    return row!;
  },
};

/** The max-number statement (exported for its plan test). */
export const seriesQuery = (
  locationId: number,
  financialYearId: number,
  scope: LocationScope,
): Prisma.Sql => Prisma.sql`
  SELECT l.id AS location_id, l.code AS location_code,
         fy.id AS year_id, to_char(fy.start_date, 'YYYY-MM-DD') AS year_start,
         (SELECT so.sales_order_no FROM sales_orders so
          WHERE so.location_id = ${locationId} AND so.financial_year_id = ${financialYearId}
            AND so.sequence IS NOT NULL AND ${inScope(scope, 'so.location_id')}
          ORDER BY so.sequence DESC
          LIMIT 1) AS max_sales_order_number,
         COALESCE((SELECT c.last_sequence FROM sales_order_counters c
                   WHERE c.location_id = ${locationId} AND c.financial_year_id = ${financialYearId}), 0)::text
           AS last_sequence
  FROM (SELECT 1) AS one
  LEFT JOIN locations l ON l.id = ${locationId}
  LEFT JOIN financial_years fy ON fy.id = ${financialYearId}`;
