import type { MaxNumber, SalesOrder } from '@sales-order/contract';

import { Prisma } from '../generated/prisma/client.js';
import type { Db } from '../master-data/master-data-repository.js';

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
  'details' | 'other_charges' | 'created_at' | 'updated_at'
> & {
  details: AsText<Line, 'quantity' | 'rate' | 'amount'>[];
  other_charges: AsText<Charge, 'amount'>[];
  created_at: Date;
  updated_at: Date;
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

export const orderReadRepository = {
  /**
   * A live (not deleted) order with its customer name, lines with product names, and charges.
   * Each line is aggregated as a row (its keys are the column names) rather than through
   * json_build_object, which costs PostgreSQL more per line (docs/performance.md, "Reads");
   * the order comes from the aggregate's own ORDER BY, which PostgreSQL guarantees.
   */
  findLive: async (db: Db, id: number): Promise<OrderReadRow | null> => {
    const [row] = await db.$queryRaw<OrderReadRow[]>`
      SELECT o.id AS sales_order_id, o.sales_order_no, o.customer_id, c.name AS customer_name,
             to_char(o.sales_order_date, 'YYYY-MM-DD') AS sales_order_date,
             o.location_id, o.financial_year_id,
             o.subtotal::text AS subtotal, o.other_charges_total::text AS other_charges_total,
             o.grand_total::text AS grand_total, o.remarks,
             COALESCE((
               SELECT json_agg(line ORDER BY d.line_no)
               FROM sales_order_details d JOIN products p ON p.id = d.product_id
               CROSS JOIN LATERAL (
                 SELECT d.id AS sales_order_detail_id, d.product_id, p.name AS product_name, d.packsize_id,
                        d.quantity::text AS quantity, d.rate::text AS rate, d.amount::text AS amount, d.remarks
               ) line
               WHERE d.sales_order_id = o.id), '[]') AS details,
             COALESCE((
               SELECT json_agg(charge ORDER BY ch.line_no)
               FROM sales_order_other_charges ch
               CROSS JOIN LATERAL (
                 SELECT ch.id AS other_charge_id, ch.description, ch.amount::text AS amount
               ) charge
               WHERE ch.sales_order_id = o.id), '[]') AS other_charges,
             o.version, o.created_at, o.updated_at, o.created_by, o.updated_by
      FROM sales_orders o JOIN customers c ON c.id = o.customer_id
      WHERE o.id = ${id} AND o.deleted_at IS NULL`;
    return row ?? null;
  },

  /**
   * A series for max-number in one statement: the location's code, the year's start, the
   * number with the highest sequence (deleted orders included, free-form numbers, which carry no
   * sequence, excluded) and the counter. The highest sequence is read backwards off the index
   * (location_id, financial_year_id, sequence): a one-row index scan, never a sort of the series.
   * Plain `DESC` (NULLS FIRST) is the index read backwards; `DESC NULLS LAST`, which Prisma's
   * `orderBy` sends, matches no index and sorts the whole series.
   */
  findSeries: async (db: Db, locationId: number, financialYearId: number): Promise<SeriesReadRow> => {
    const [row] = await db.$queryRaw<SeriesReadRow[]>`${seriesQuery(locationId, financialYearId)}`;
    // The statement selects from no table at the top, so it always returns its one row.
    return row!;
  },
};

/** The max-number statement (exported for its plan test). */
export const seriesQuery = (locationId: number, financialYearId: number): Prisma.Sql => Prisma.sql`
  SELECT l.id AS location_id, l.code AS location_code,
         fy.id AS year_id, to_char(fy.start_date, 'YYYY-MM-DD') AS year_start,
         (SELECT so.sales_order_no FROM sales_orders so
          WHERE so.location_id = ${locationId} AND so.financial_year_id = ${financialYearId}
            AND so.sequence IS NOT NULL
          ORDER BY so.sequence DESC
          LIMIT 1) AS max_sales_order_number,
         COALESCE((SELECT c.last_sequence FROM sales_order_counters c
                   WHERE c.location_id = ${locationId} AND c.financial_year_id = ${financialYearId}), 0)::text
           AS last_sequence
  FROM (SELECT 1) AS one
  LEFT JOIN locations l ON l.id = ${locationId}
  LEFT JOIN financial_years fy ON fy.id = ${financialYearId}`;
