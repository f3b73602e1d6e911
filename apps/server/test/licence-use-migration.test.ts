import { randomBytes } from 'node:crypto';

import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createDatabaseBefore, migrationSql } from './support/postgres-server.js';

const serverUrl = process.env.TEST_DATABASE_URL;
const MIGRATION = '20261122072000_licence_use_index';

/**
 * Lines written before the lines carried their order's date and live flag, then the migration:
 * every existing line gets its order's values, or the quota would forget every past order.
 */
describe.skipIf(!serverUrl)(`migration ${MIGRATION} on existing orders (needs TEST_DATABASE_URL)`, () => {
  const name = `so_test_migration_${randomBytes(6).toString('hex')}`;
  let client: pg.Client;
  let drop: (() => Promise<void>) | undefined;

  const lines = async () =>
    (
      await client.query<{ id: number; order_date: string | null; live: boolean }>(
        `SELECT id, to_char(order_date, 'YYYY-MM-DD') AS order_date, live FROM sales_order_details ORDER BY id`,
      )
    ).rows;

  beforeAll(async () => {
    ({ client, drop } = await createDatabaseBefore(serverUrl!, name, MIGRATION));

    await client.query(`
      INSERT INTO locations (id, code, name) VALUES (1, 'DHK', 'Dhaka');
      INSERT INTO financial_years (id, code, start_date, end_date) VALUES (1, 'FY2026-27', '2026-07-01', '2027-06-30');
      INSERT INTO customers (id, code, name) VALUES (1, 'C1', 'Customer');
      INSERT INTO products (id, code, name) VALUES (1, 'P1', 'Product');
      INSERT INTO sales_orders (id, sales_order_no, location_id, financial_year_id, customer_id, sales_order_date, subtotal, other_charges_total, grand_total, deleted_at) VALUES
        (1, 'A-1', 1, 1, 1, '2026-08-01', 0, 0, 0, NULL),
        (2, 'A-2', 1, 1, 1, '2027-01-15', 0, 0, 0, now());
      INSERT INTO sales_order_details (id, sales_order_id, line_no, product_id, quantity, rate, amount) VALUES
        (1, 1, 1, 1, 1, 1, 1), (2, 1, 2, 1, 2, 1, 2), (3, 2, 1, 1, 4, 1, 4);
    `);
    await client.query(await migrationSql(MIGRATION));
  });

  afterAll(() => drop?.());

  it("gives every existing line its order's date and live flag", async () => {
    expect(await lines()).toEqual([
      { id: 1, order_date: '2026-08-01', live: true },
      { id: 2, order_date: '2026-08-01', live: true },
      { id: 3, order_date: '2027-01-15', live: false },
    ]);
  });

  it('keeps them right afterwards, through its triggers', async () => {
    await client.query(`UPDATE sales_orders SET sales_order_date = '2026-09-09', deleted_at = now() WHERE id = 1`);
    await client.query(`UPDATE sales_orders SET deleted_at = NULL WHERE id = 2`);
    expect(await lines()).toEqual([
      { id: 1, order_date: '2026-09-09', live: false },
      { id: 2, order_date: '2026-09-09', live: false },
      { id: 3, order_date: '2027-01-15', live: true },
    ]);
  });
});
