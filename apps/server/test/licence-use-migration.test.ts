import { randomBytes } from 'node:crypto';

import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createDatabaseBefore, migrationSql } from './support/postgres-server.js';

const serverUrl = process.env.TEST_DATABASE_URL;
const MIGRATION = '20261122072000_licence_use_index';
const PER_STATEMENT = '20261127120000_line_copies_per_statement';

/**
 * A database of its own for the enclosing describe, with every migration before `migration`
 * applied (createDatabaseBefore), and dropped after it.
 */
const databaseBefore = (migration: string) => {
  const database: { client?: pg.Client; drop?: () => Promise<void> } = {};
  beforeAll(async () => {
    Object.assign(
      database,
      await createDatabaseBefore(serverUrl!, `so_test_migration_${randomBytes(6).toString('hex')}`, migration),
    );
  });
  afterAll(() => database.drop?.());
  return () => database.client!;
};

/** The master data of one order series and one product, for the orders each test writes. */
const MASTER_DATA = `
  INSERT INTO locations (id, code, name) VALUES (1, 'DHK', 'Dhaka');
  INSERT INTO financial_years (id, code, start_date, end_date) VALUES (1, 'FY2026-27', '2026-07-01', '2027-06-30');
  INSERT INTO customers (id, code, name) VALUES (1, 'C1', 'Customer');
  INSERT INTO products (id, code, name) VALUES (1, 'P1', 'Product');`;

/** Every line's copies of its order's date and `flag` (the live flag, later whether it holds quota). */
const linesOf = async <Flag extends string>(client: pg.Client, flag: Flag) =>
  (
    await client.query<{ id: number; order_date: string | null } & Record<Flag, boolean>>(
      `SELECT id, to_char(order_date, 'YYYY-MM-DD') AS order_date, ${flag} FROM sales_order_details ORDER BY id`,
    )
  ).rows;

/**
 * Lines written before the lines carried their order's date and live flag, then the migration:
 * every existing line gets its order's values, or the quota would forget every past order.
 */
describe.skipIf(!serverUrl)(`migration ${MIGRATION} on existing orders (needs TEST_DATABASE_URL)`, () => {
  const client = databaseBefore(MIGRATION);
  const lines = () => linesOf(client(), 'live');

  beforeAll(async () => {
    await client().query(`${MASTER_DATA}
      INSERT INTO sales_orders (id, sales_order_no, location_id, financial_year_id, customer_id, sales_order_date, subtotal, other_charges_total, grand_total, deleted_at) VALUES
        (1, 'A-1', 1, 1, 1, '2026-08-01', 0, 0, 0, NULL),
        (2, 'A-2', 1, 1, 1, '2027-01-15', 0, 0, 0, now());
      INSERT INTO sales_order_details (id, sales_order_id, line_no, product_id, quantity, rate, amount) VALUES
        (1, 1, 1, 1, 1, 1, 1), (2, 1, 2, 1, 2, 1, 2), (3, 2, 1, 1, 4, 1, 4);
    `);
    await client().query(await migrationSql(MIGRATION));
  });

  it("gives every existing line its order's date and live flag", async () => {
    expect(await lines()).toEqual([
      { id: 1, order_date: '2026-08-01', live: true },
      { id: 2, order_date: '2026-08-01', live: true },
      { id: 3, order_date: '2027-01-15', live: false },
    ]);
  });

  it('keeps them right afterwards, through its triggers', async () => {
    await client().query(`UPDATE sales_orders SET sales_order_date = '2026-09-09', deleted_at = now() WHERE id = 1`);
    await client().query(`UPDATE sales_orders SET deleted_at = NULL WHERE id = 2`);
    expect(await lines()).toEqual([
      { id: 1, order_date: '2026-09-09', live: false },
      { id: 2, order_date: '2026-09-09', live: false },
      { id: 3, order_date: '2027-01-15', live: true },
    ]);
  });
});

/**
 * The copies once their writer states them on insert and a statement trigger checks them:
 * whatever a writer other than the service inserts (no copies, wrong ones), every line ends up
 * with its order's date and quota flag.
 */
describe.skipIf(!serverUrl)(`migration ${PER_STATEMENT} (needs TEST_DATABASE_URL)`, () => {
  const client = databaseBefore(PER_STATEMENT);
  const lines = () => linesOf(client(), 'consumes_quota');

  beforeAll(async () => {
    await client().query(await migrationSql(PER_STATEMENT));
    await client().query(`${MASTER_DATA}
      INSERT INTO sales_orders (id, sales_order_no, location_id, financial_year_id, customer_id, sales_order_date, subtotal, other_charges_total, grand_total, status) VALUES
        (1, 'A-1', 1, 1, 1, '2026-08-01', 0, 0, 0, 'draft'),
        (2, 'A-2', 1, 1, 1, '2027-01-15', 0, 0, 0, 'confirmed');
    `);
  });

  it("gives lines inserted without their copies, or with wrong ones, their order's", async () => {
    await client().query(`
      INSERT INTO sales_order_details (id, sales_order_id, line_no, product_id, quantity, rate, amount) VALUES
        (1, 1, 1, 1, 1, 1, 1), (2, 2, 1, 1, 2, 1, 2)`);
    await client().query(`
      INSERT INTO sales_order_details (id, sales_order_id, line_no, product_id, quantity, rate, amount, order_date, consumes_quota) VALUES
        (3, 1, 2, 1, 1, 1, 1, '2026-08-01', true), (4, 2, 2, 1, 1, 1, 1, '2026-01-01', true)`);
    expect(await lines()).toEqual([
      { id: 1, order_date: '2026-08-01', consumes_quota: false },
      { id: 2, order_date: '2027-01-15', consumes_quota: true },
      { id: 3, order_date: '2026-08-01', consumes_quota: false },
      { id: 4, order_date: '2027-01-15', consumes_quota: true },
    ]);
  });

  it('keeps right copies as written, and an order still passes its changes on', async () => {
    await client().query(`
      INSERT INTO sales_order_details (id, sales_order_id, line_no, product_id, quantity, rate, amount, order_date, consumes_quota) VALUES
        (5, 1, 3, 1, 1, 1, 1, '2026-08-01', false)`);
    await client().query(`UPDATE sales_orders SET sales_order_date = '2026-09-09', status = 'confirmed' WHERE id = 1`);
    expect((await lines()).filter((line) => [1, 3, 5].includes(line.id))).toEqual([
      { id: 1, order_date: '2026-09-09', consumes_quota: true },
      { id: 3, order_date: '2026-09-09', consumes_quota: true },
      { id: 5, order_date: '2026-09-09', consumes_quota: true },
    ]);
  });
});
