import { randomBytes } from 'node:crypto';

import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createDatabaseBefore, migrationSql } from './support/postgres-server.js';

const serverUrl = process.env.TEST_DATABASE_URL;
const MIGRATION = '20261207041248_licence_holdings';

/**
 * Orders that existed before the running totals (confirmed, closed with deliveries and a
 * return, a draft, a cancelled and a soft-deleted one, on two products and two days), then the
 * migration: the totals start at what those lines hold by the rule, exactly, and follow changes
 * from there. Without the backfill, every existing order would stop counting.
 */
describe.skipIf(!serverUrl)(`migration ${MIGRATION} on existing orders (needs TEST_DATABASE_URL)`, () => {
  let client: pg.Client;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ client, drop } = await createDatabaseBefore(
      serverUrl!,
      `so_test_migration_${randomBytes(6).toString('hex')}`,
      MIGRATION,
    ));
    await client.query(`
      INSERT INTO locations (id, code, name) VALUES (1, 'DHK', 'Dhaka');
      INSERT INTO financial_years (id, code, start_date, end_date) VALUES (1, 'FY2026-27', '2026-07-01', '2027-06-30');
      INSERT INTO customers (id, code, name) VALUES (1, 'C1', 'Customer');
      INSERT INTO products (id, code, name) VALUES (1, 'P1', 'Product'), (2, 'P2', 'Other');
      INSERT INTO sales_orders (id, sales_order_no, location_id, financial_year_id, customer_id, sales_order_date,
                                subtotal, other_charges_total, grand_total, status, cancellation_reason, deleted_at) VALUES
        (1, 'A-1', 1, 1, 1, '2026-08-01', 0, 0, 0, 'confirmed', NULL, NULL),
        (2, 'A-2', 1, 1, 1, '2026-08-01', 0, 0, 0, 'closed', NULL, NULL),
        (3, 'A-3', 1, 1, 1, '2026-08-01', 0, 0, 0, 'draft', NULL, NULL),
        (4, 'A-4', 1, 1, 1, '2026-08-01', 0, 0, 0, 'cancelled', 'no', NULL),
        (5, 'A-5', 1, 1, 1, '2026-08-01', 0, 0, 0, 'confirmed', NULL, now()),
        (6, 'A-6', 1, 1, 1, '2026-09-30', 0, 0, 0, 'confirmed', NULL, NULL);
      INSERT INTO sales_order_details (id, sales_order_id, line_no, product_id, quantity, rate, amount) VALUES
        (1, 1, 1, 1, 10.001, 1, 1), (2, 1, 2, 2, 4, 1, 1),
        (3, 2, 1, 1, 100, 1, 1),
        (4, 3, 1, 1, 1000, 1, 1), (5, 4, 1, 1, 1000, 1, 1), (6, 5, 1, 1, 1000, 1, 1),
        (7, 6, 1, 1, 0.1, 1, 1), (8, 6, 2, 1, 0.2, 1, 1);
      -- Order 1 half delivered and a little over on line 2, order 2 closed after 60 with 5 back.
      UPDATE sales_order_details SET delivered_quantity = 5 WHERE id = 1;
      UPDATE sales_order_details SET delivered_quantity = 4.5 WHERE id = 2;
      UPDATE sales_order_details SET delivered_quantity = 60, returned_quantity = 5, short_closed_quantity = 45 WHERE id = 3;
    `);
    await client.query(await migrationSql(MIGRATION));
  });
  afterAll(() => drop?.());

  const totals = async () =>
    (
      await client.query<{ product_id: number; order_date: string; held: string }>(`
        SELECT product_id, to_char(order_date, 'YYYY-MM-DD') AS order_date, SUM(held)::text AS held FROM (
          SELECT product_id, order_date, held_quantity AS held FROM licence_holdings
          UNION ALL SELECT product_id, order_date, quantity FROM licence_holding_changes) AS ledger
        GROUP BY product_id, order_date ORDER BY product_id, order_date`)
    ).rows;

  it('starts the totals at what the existing lines hold', async () => {
    expect(await totals()).toEqual([
      // 10.001 ordered (5 delivered) + 55 net delivered on the closed order.
      { product_id: 1, order_date: '2026-08-01', held: '65.001' },
      { product_id: 1, order_date: '2026-09-30', held: '0.300' },
      // 4 ordered, 4.5 delivered.
      { product_id: 2, order_date: '2026-08-01', held: '4.500' },
    ]);
  });

  it('follows the lines from there', async () => {
    await client.query(`UPDATE sales_orders SET status = 'confirmed' WHERE id = 3`);
    await client.query(`UPDATE sales_orders SET sales_order_date = '2026-09-30' WHERE id = 1`);
    expect(await totals()).toEqual([
      { product_id: 1, order_date: '2026-08-01', held: '1055.000' },
      { product_id: 1, order_date: '2026-09-30', held: '10.301' },
      { product_id: 2, order_date: '2026-08-01', held: '0.000' },
      { product_id: 2, order_date: '2026-09-30', held: '4.500' },
    ]);
  });
});
