/**
 * Loads many orders straight in SQL (generate_series), as a host's bulk import would: for the
 * list's plan test and `pnpm bench`, where the planner must see a production-sized table.
 * Every order gets one line; about one in three has remarks, one in twenty is soft-deleted.
 * Statuses as a working system holds them: most confirmed, one in five closed, one in ten a
 * draft, one in twenty cancelled (with its reason).
 */

export interface BulkOrders {
  orders: number;
  customerIds: number[];
  productIds: number[];
  locationIds: number[];
  /** Order dates spread over `days` days from `firstDay` (YYYY-MM-DD); financial years must cover them. */
  firstDay: string;
  days: number;
}

/** Runs one statement with positional parameters ($1, $2, ...). */
export type Execute = (sql: string, params: unknown[]) => Promise<unknown>;

export const loadBulkOrders = async (execute: Execute, bulk: BulkOrders): Promise<void> => {
  await execute(
    `INSERT INTO sales_orders (sales_order_no, location_id, financial_year_id, customer_id, sales_order_date, remarks,
                               subtotal, other_charges_total, grand_total, created_at, updated_at, deleted_at,
                               status, status_changed_at, cancellation_reason)
     SELECT 'BLK-' || lpad(g::text, 7, '0'),
            ($2::int[])[1 + g % cardinality($2::int[])],
            (SELECT fy.id FROM financial_years fy WHERE day BETWEEN fy.start_date AND fy.end_date ORDER BY fy.start_date LIMIT 1),
            ($3::int[])[1 + g % cardinality($3::int[])],
            day,
            CASE WHEN g % 3 = 0 THEN 'note ' || md5(g::text) END,
            total, 0, total, stamp, stamp, CASE WHEN g % 20 = 0 THEN stamp END,
            status, stamp, CASE WHEN status = 'cancelled' THEN 'bulk load' END
     FROM generate_series(1, $1::int) g,
          LATERAL (SELECT CASE WHEN g % 20 = 7 THEN 'cancelled' WHEN g % 10 = 3 THEN 'draft'
                               WHEN g % 5 = 1 THEN 'closed' ELSE 'confirmed' END AS status) AS s,
          LATERAL (SELECT $4::date + (g % $5::int) AS day,
                          ((g::bigint * 7919) % 1000000) / 100.0 AS total,
                          TIMESTAMPTZ '2026-01-01 00:00:00+00' + g * INTERVAL '37 seconds' AS stamp) AS v`,
    [bulk.orders, bulk.locationIds, bulk.customerIds, bulk.firstDay, bulk.days],
  );
  await execute(
    `INSERT INTO sales_order_details (sales_order_id, line_no, product_id, quantity, rate, amount)
     SELECT id, 1, ($1::int[])[1 + id % cardinality($1::int[])], 1, grand_total, grand_total
     FROM sales_orders WHERE sales_order_no LIKE 'BLK-%'`,
    [bulk.productIds],
  );
  await execute('ANALYZE', []);
};
