import { randomBytes } from 'node:crypto';

import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createDatabaseBefore, migrationSql } from './support/postgres-server.js';

const serverUrl = process.env.TEST_DATABASE_URL;
const MIGRATION = '20261122044336_order_number_uniqueness';

/**
 * Orders written before numbers were unique across every order (case-sensitive, per series, and
 * with counters moved by any trailing digits), then the migration: what becomes of each row.
 */
describe.skipIf(!serverUrl)(`migration ${MIGRATION} on existing orders (needs TEST_DATABASE_URL)`, () => {
  const name = `so_test_migration_${randomBytes(6).toString('hex')}`;
  let client: pg.Client;
  let drop: (() => Promise<void>) | undefined;

  const orderNumbers = async () =>
    Object.fromEntries(
      (
        await client.query<{ id: number; sales_order_no: string; sequence: string | null }>(
          'SELECT id, sales_order_no, sequence FROM sales_orders ORDER BY id',
        )
      ).rows.map((row) => [row.id, [row.sales_order_no, row.sequence === null ? null : Number(row.sequence)]]),
    );

  beforeAll(async () => {
    ({ client, drop } = await createDatabaseBefore(serverUrl!, name, MIGRATION));

    await client.query(`
      INSERT INTO locations (id, code, name) VALUES (1, 'DHK', 'Dhaka'), (2, 'KHL', 'Khulna'), (3, 'SYL', 'Sylhet'), (4, 'BOG', 'Bogura');
      INSERT INTO financial_years (id, code, start_date, end_date) VALUES
        (1, 'FY2024-25', '2024-07-01', '2025-06-30'), (2, 'FY2026-27', '2026-07-01', '2027-06-30');
      INSERT INTO customers (id, code, name) VALUES (1, 'C1', 'Customer');
      INSERT INTO sales_orders (id, sales_order_no, sequence, location_id, financial_year_id, customer_id, sales_order_date, subtotal, other_charges_total, grand_total, deleted_at) VALUES
        (1, 'dhk-2026-0001', 1, 1, 2, 1, '2026-08-01', 0, 0, 0, now()),
        (2, 'DHK-2026-00001', 1, 1, 2, 1, '2026-08-01', 0, 0, 0, NULL),
        (3, 'SYL-2024-00002', 2, 2, 1, 1, '2024-08-01', 0, 0, 0, NULL),
        (4, 'SYL-2024-00002', 2, 3, 1, 1, '2024-08-01', 0, 0, 0, NULL),
        (5, 'X-999999999999999999', 999999999999999999, 4, 2, 1, '2026-08-01', 0, 0, 0, NULL),
        (6, 'PO-20261115', 20261115, 1, 2, 1, '2026-08-01', 0, 0, 0, NULL),
        (7, 'po-20261115', 20261115, 1, 1, 1, '2024-08-01', 0, 0, 0, NULL),
        (8, 'A-VERY-LONG-HOST-REFERENCE-NUMBER-WITH-FIFTY-CHARS', NULL, 2, 2, 1, '2026-08-01', 0, 0, 0, NULL),
        (9, 'a-very-long-host-reference-number-with-fifty-chars', NULL, 2, 1, 1, '2024-08-01', 0, 0, 0, NULL),
        (10, 'Dhk-2024-12', 12, 1, 1, 1, '2024-08-01', 0, 0, 0, NULL);
      SELECT setval(pg_get_serial_sequence('sales_orders', 'id'), 100);
      INSERT INTO sales_order_counters (location_id, financial_year_id, last_sequence) VALUES
        (1, 2, 20261115), (1, 1, 20261115), (2, 1, 2), (3, 1, 2), (4, 2, 1000000000000000000), (2, 2, 7);
    `);
    await client.query(await migrationSql(MIGRATION));
  });

  afterAll(() => drop?.());

  it('canonicalises numbers of their own series, keeps every other number, and renames the later of two colliding ones', async () => {
    expect(await orderNumbers()).toEqual({
      // Own series: canonical, with its sequence. The deleted order 1 keeps the number, order 2 is renamed.
      1: ['DHK-2026-00001', 1],
      2: ['DHK-2026-00001.DUP2', null],
      // A number of the SYL series on a KHL order collides with SYL's own: the SYL order keeps it.
      3: ['SYL-2024-00002.DUP3', null],
      4: ['SYL-2024-00002', 2],
      // Free-form numbers keep their text and lose their sequence; the later case variant is renamed.
      5: ['X-999999999999999999', null],
      6: ['PO-20261115', null],
      7: ['po-20261115.DUP7', null],
      8: ['A-VERY-LONG-HOST-REFERENCE-NUMBER-WITH-FIFTY-CHARS', null],
      9: ['a-very-long-host-reference-number-with-fifty-.DUP9', null],
      10: ['DHK-2024-00012', 12],
    });
  });

  it('sets every counter to the highest number of its series that an order holds', async () => {
    const counters = (
      await client.query<{ location_id: number; financial_year_id: number; last_sequence: string }>(
        'SELECT location_id, financial_year_id, last_sequence FROM sales_order_counters ORDER BY location_id, financial_year_id',
      )
    ).rows.map((row) => [row.location_id, row.financial_year_id, Number(row.last_sequence)]);
    expect(counters).toEqual([
      [1, 1, 12],
      [1, 2, 1],
      [2, 1, 0],
      [2, 2, 0],
      [3, 1, 2],
      [4, 2, 0],
    ]);
  });

  it('leaves a unique index that refuses case and padding variants of any stored number', async () => {
    const insert = (salesOrderNo: string) =>
      client.query(
        `INSERT INTO sales_orders (sales_order_no, location_id, financial_year_id, customer_id, sales_order_date, subtotal, other_charges_total, grand_total)
         VALUES ($1, 2, 2, 1, '2026-08-01', 0, 0, 0)`,
        [salesOrderNo],
      );
    for (const variant of ['DHK-2026-1', 'syl-2024-2', 'x-999999999999999999', 'dhk-2026-00001.dup2']) {
      await expect(insert(variant), variant).rejects.toThrow(/sales_orders_number_key/);
    }
  });
});
