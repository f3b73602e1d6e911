import type { MaxNumber, SalesOrder } from '@sales-order/contract';

import type { Scope } from '../../auth/scope.js';
import { type Db, type Reader, readRows } from '../../db/transactions.js';
import { withinLocations } from '../../db/within-locations.js';
import { Prisma } from '../../generated/prisma/client.js';
import { JsonText } from '../../shared/json-text.js';
import { orderReadShape } from './order-read-shape.js';

/**
 * The order reads in raw SQL, one statement each whatever the line count: `$queryRaw` is sent
 * as written (no Prisma query-plan compilation).
 */

/**
 * One live order as its read statement renders it: the contract's read shape as JSON text
 * (order-read-shape.ts), passed through to the answer unparsed, and its version (the entity tag's
 * first part).
 */
export interface RenderedOrder {
  version: SalesOrder['version'];
  json: JsonText<SalesOrder>;
}

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

/** The read shape over the tables, which has no parameters: built once, not on every read. */
const READ_SHAPE = orderReadShape();

/** The read statement of one live order (exported for its plan test). */
export const liveOrderQuery = (id: number, scope: Scope): Prisma.Sql => Prisma.sql`
  SELECT o.version, ${READ_SHAPE}::text AS json
  FROM sales_orders o
  WHERE o.id = ${id}::int AND o.deleted_at IS NULL AND ${withinLocations(scope, 'o.location_id')}`;

export const orderReadStore = {
  /**
   * A live (not deleted) order in the caller's scope with its customer name, lines with product
   * names, and charges, rendered by PostgreSQL; the text is not parsed here (the statement's
   * JSON is cast to text, which the driver hands over as it is). In a transaction, or on the
   * pool directly (a GET).
   */
  findLive: async (db: Reader, id: number, scope: Scope): Promise<RenderedOrder | null> => {
    const [row] = await readRows<{ version: number; json: string }>(db, liveOrderQuery(id, scope));
    return row ? { version: row.version, json: new JsonText<SalesOrder>(row.json) } : null;
  },

  /**
   * A series for max-number in one statement: the location's code, the year's start, the
   * number with the highest sequence (deleted orders included, free-form numbers, which carry no
   * sequence, excluded) and the counter. The highest sequence is read backwards off the index
   * (location_id, financial_year_id, sequence): a one-row index scan, never a sort of the series.
   * Plain `DESC` (NULLS FIRST) is the index read backwards; `DESC NULLS LAST`, which Prisma's
   * `orderBy` sends, matches no index and sorts the whole series.
   */
  findSeries: async (db: Db, locationId: number, financialYearId: number, scope: Scope): Promise<SeriesReadRow> => {
    const [row] = await db.$queryRaw<SeriesReadRow[]>`${seriesQuery(locationId, financialYearId, scope)}`;
    // The statement selects from no table at the top, so it always returns its one row.
    return row!;
  },
};

/** The max-number statement (exported for its plan test). */
export const seriesQuery = (locationId: number, financialYearId: number, scope: Scope): Prisma.Sql => Prisma.sql`
  SELECT l.id AS location_id, l.code AS location_code,
         fy.id AS year_id, to_char(fy.start_date, 'YYYY-MM-DD') AS year_start,
         (SELECT so.sales_order_no FROM sales_orders so
          WHERE so.location_id = ${locationId} AND so.financial_year_id = ${financialYearId}
            AND so.sequence IS NOT NULL AND ${withinLocations(scope, 'so.location_id')}
          ORDER BY so.sequence DESC
          LIMIT 1) AS max_sales_order_number,
         COALESCE((SELECT c.last_sequence FROM sales_order_counters c
                   WHERE c.location_id = ${locationId} AND c.financial_year_id = ${financialYearId}), 0)::text
           AS last_sequence
  FROM (SELECT 1) AS one
  LEFT JOIN locations l ON l.id = ${locationId}
  LEFT JOIN financial_years fy ON fy.id = ${financialYearId}`;
