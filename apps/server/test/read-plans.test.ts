import { LIST_TOTAL_CAP, type ListCursor, type ListSort } from '@sales-order/contract';
import { beforeAll, describe, expect, it } from 'vitest';

import { loadBulkOrders } from '../scripts/bulk-orders.js';
import { scopeOf, systemScope } from '../src/auth/scope.js';
import { Prisma } from '../src/generated/prisma/client.js';
import { licenceHoldingsRepository } from '../src/licences/licence-holdings-repository.js';
import { productLicencesQuery } from '../src/licences/licence-repository.js';
import { countQuery, type OrderListFilter, pageQuery } from '../src/orders/store/order-list-store.js';
import { seriesQuery } from '../src/orders/store/order-read-store.js';
import { parseCalendarDate } from '../src/shared/calendar.js';
import { toDecimal } from '../src/shared/money.js';
import { ORDER_DATE } from './support/fixtures.js';
import { createLicensedProduct } from './support/licences.js';
import { withOwnConnection } from './support/postgres-server.js';
import { explain, nodesOf, orderTableSeqScans, type PlanNode } from './support/query-plans.js';
import { useServerWithFixtures } from './support/test-server.js';

const ORDERS = 200_000;
const CUSTOMERS = 500;
const PRODUCTS = 200;
/** A quarter of the two years of bulk orders; ORDER_DATE (2026-11-15) is inside it. */
const LICENCE = { validFrom: '2026-10-01', validTo: '2026-12-31', quantity: '100000' };

/**
 * The plans of the reads on a real PostgreSQL with 200,000 orders loaded in SQL (once, for this
 * file: the load is most of its time), so that the planner's choices are the ones production
 * sees. The list: no sequential scan of the orders or their lines for any filter or sort, and no
 * sort over the whole set. max-number reads the highest sequence of the series off an index,
 * with no sort of the series; the licence quota reads the product's running totals per day
 * inside the licence window only, never the lines of other orders nor the orders table: each
 * reads a few index entries, so it costs the same with 200,000 past orders as with 200. Timings are the
 * benchmark's business (pnpm bench), not this test's.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('read plans with 200,000 orders (needs TEST_DATABASE_URL)', () => {
  const suite = useServerWithFixtures();
  let firstCustomer: number;
  let firstProduct: number;
  let licensed: Awaited<ReturnType<typeof createLicensedProduct>>;
  let licensedLines: number;
  /** The series the bulk orders of Dhaka in the current year are numbered in. */
  let series: { locationId: number; yearId: number; max: string; counter: number };

  beforeAll(async () => {
    const { prisma } = suite.server.database;
    const { locations, years } = suite.fixtures;
    licensed = await createLicensedProduct(prisma, { licences: [LICENCE] });
    await prisma.$executeRaw`INSERT INTO customers (code, name) SELECT 'BC' || g, 'Bulk Customer ' || md5(g::text) FROM generate_series(1, ${CUSTOMERS}::int) g`;
    await prisma.$executeRaw`INSERT INTO products (code, name) SELECT 'BP' || g, 'Bulk Product ' || g FROM generate_series(1, ${PRODUCTS}::int) g`;
    const idsWithCode = async (table: 'customers' | 'products', prefix: string) =>
      (
        await prisma.$queryRaw<{ id: number }[]>`
          SELECT id FROM ${Prisma.raw(table)} WHERE code LIKE ${`${prefix}%`} ORDER BY id`
      ).map((row) => row.id);
    const customerIds = await idsWithCode('customers', 'BC');
    const productIds = await idsWithCode('products', 'BP');
    firstCustomer = customerIds[0]!;
    firstProduct = productIds[0]!;
    await withOwnConnection(prisma, async (client) => {
      await loadBulkOrders((sql, params) => client.query(sql, params), {
        orders: ORDERS,
        customerIds,
        // The licensed product holds the line of one order in eleven, the others share the rest.
        productIds: [...Array.from({ length: PRODUCTS / 10 }, () => licensed.id), ...productIds],
        locationIds: [locations.dhaka.id, locations.chattogram.id],
        // Both fixture financial years.
        firstDay: '2025-07-01',
        days: 730,
      });

      // Nine in ten bulk orders of Dhaka's current year get numbers of that series, in id order; the
      // tenth keep their free-form BLK- numbers (no sequence), at ids above the series' last.
      await client.query(
        `UPDATE sales_orders o
         SET sequence = s.sequence, sales_order_no = 'DHK-2026-' || lpad(s.sequence::text, 5, '0')
         FROM (SELECT id, row_number() OVER (ORDER BY id) AS sequence FROM sales_orders
               WHERE location_id = $1 AND financial_year_id = $2 AND id % 10 <> 0) s
         WHERE o.id = s.id`,
        [locations.dhaka.id, years.currentYear.id],
      );
    });
    const [last] = await prisma.$queryRaw<{ id: number; sales_order_no: string; sequence: bigint }[]>`
      SELECT id, sales_order_no, sequence FROM sales_orders
      WHERE location_id = ${locations.dhaka.id} AND financial_year_id = ${years.currentYear.id} AND sequence IS NOT NULL
      ORDER BY sequence DESC LIMIT 1`;
    // The highest number is on a deleted order: it still counts.
    await prisma.$executeRaw`UPDATE sales_orders SET deleted_at = now() WHERE id = ${last!.id}`;
    const counter = Number(last!.sequence) + 3;
    await prisma.$executeRaw`
      INSERT INTO sales_order_counters (location_id, financial_year_id, last_sequence)
      VALUES (${locations.dhaka.id}, ${years.currentYear.id}, ${counter})`;
    series = { locationId: locations.dhaka.id, yearId: years.currentYear.id, max: last!.sales_order_no, counter };
    licensedLines = await prisma.salesOrderDetail.count({ where: { productId: licensed.id } });
    // The running totals as the periodic fold leaves them, with a few changes after it.
    while ((await licenceHoldingsRepository.fold(prisma, 50_000)) > 0);
    await prisma.$executeRaw`
      UPDATE sales_orders SET status = 'cancelled', cancellation_reason = 'plan'
      WHERE id IN (SELECT sales_order_id FROM sales_order_details WHERE product_id = ${licensed.id} LIMIT 20)
        AND status = 'confirmed'`;
    await withOwnConnection(prisma, (client) => client.query('ANALYZE'));
  }, 300_000);

  const planOf = (query: Prisma.Sql) => explain(suite.server.database.prisma, query);

  const live: OrderListFilter = { scope: systemScope, includeDeleted: false };
  const cursors: Record<ListSort, ListCursor> = {
    '-sales_order_date': { s: '-sales_order_date', k: '2026-03-01', i: 100_000 },
    sales_order_date: { s: 'sales_order_date', k: '2026-03-01', i: 100_000 },
    '-updated_at': { s: '-updated_at', k: '2026-01-20T00:00:00.000Z', i: 100_000 },
    updated_at: { s: 'updated_at', k: '2026-01-20T00:00:00.000Z', i: 100_000 },
    '-grand_total': { s: '-grand_total', k: '5000.00', i: 100_000 },
    grand_total: { s: 'grand_total', k: '5000.00', i: 100_000 },
    sales_order_no: { s: 'sales_order_no', k: 'BLK-0100000', i: 100_000 },
    delivery_status: { s: 'delivery_status', k: 'not_delivered', i: 100_000 },
    '-delivery_status': { s: '-delivery_status', k: 'partly_delivered', i: 100_000 },
  };

  it('walks an index for every sort, first page and later pages alike: no sequential scan, no sort', async () => {
    for (const sort of Object.keys(cursors) as ListSort[]) {
      for (const cursor of [undefined, cursors[sort]]) {
        for (const filter of [
          live,
          { scope: systemScope, includeDeleted: true },
          { scope: scopeOf({ locations: [1] }), includeDeleted: false },
        ]) {
          const plan = await planOf(pageQuery(filter, sort, cursor, 51));
          const label = `${sort} ${cursor ? 'with' : 'without'} cursor, include_deleted=${filter.includeDeleted}`;
          expect(orderTableSeqScans(plan), label).toEqual([]);
          expect(
            nodesOf(plan).filter((node) => node['Node Type'].includes('Sort')),
            label,
          ).toEqual([]);
        }
      }
    }
  });

  it('uses an index for every filter; a sort, if any, is over the filtered few, never the whole set', async () => {
    const { locations, years } = suite.fixtures;
    const filters: OrderListFilter[] = [
      { ...live, customerId: firstCustomer + 7 },
      { ...live, locationId: locations.chattogram.id },
      { ...live, financialYearId: years.previousYear.id },
      { ...live, dateFrom: '2026-02-01', dateTo: '2026-02-03' },
      { ...live, dateFrom: '2026-05-01' },
      { ...live, number: 'blk-0123456' },
      { ...live, numberPrefix: 'BLK-01234' },
      { ...live, q: 'a1b2c' },
      { ...live, q: 'customer 0cc175' },
      { ...live, productId: firstProduct + 3 },
      { ...live, minTotal: '9990.00' },
      { ...live, minTotal: '100.00', maxTotal: '101.00' },
      { ...live, updatedSince: new Date('2026-03-20T00:00:00Z') },
      { scope: systemScope, includeDeleted: true, updatedSince: new Date('2026-03-20T00:00:00Z') },
      { ...live, customerId: firstCustomer + 7, dateFrom: '2026-01-01', minTotal: '10.00' },
    ];
    for (const sort of ['-sales_order_date', 'updated_at', '-grand_total'] as const) {
      for (const filter of filters) {
        const plan = await planOf(pageQuery(filter, sort, undefined, 51));
        const label = `${sort} ${JSON.stringify(filter)}`;
        expect(orderTableSeqScans(plan), label).toEqual([]);
        for (const sortNode of nodesOf(plan).filter((node) => node['Node Type'] === 'Sort')) {
          const input = sortNode.Plans?.[0]?.['Plan Rows'] ?? 0;
          expect(input, `${label}: rows into a sort`).toBeLessThan(ORDERS / 20);
        }
      }
    }
  });

  it('counts with include_total only up to the cap, and reports it capped', async () => {
    const plan = await planOf(countQuery(live));
    expect(nodesOf(plan).some((node) => node['Node Type'] === 'Limit')).toBe(true);
    const response = await suite.server.http.get('/sales-orders').query({ include_total: true, limit: 50 });
    expect(response.status).toBe(200);
    expect(response.body.data.items).toHaveLength(50);
    expect(response.body.data.total).toBe(LIST_TOTAL_CAP);
    expect(response.body.data.total_capped).toBe(true);
    const few = await suite.server.http
      .get('/sales-orders')
      .query({ include_total: true, customer_id: firstCustomer + 7 });
    // Customer 7 of the batch has every 500th order from the 7th: none of them deleted (every 20th is).
    expect(few.body.data.total).toBe(ORDERS / CUSTOMERS);
    expect(few.body.data.total_capped).toBe(false);
  });
  const scansOf = (plan: PlanNode, table: string) =>
    nodesOf(plan).filter((node) => node['Relation Name'] === table || node['Index Name']?.startsWith(table));

  it('max-number reads the series highest sequence off an index: no sort, no sequential scan', async () => {
    const plan = await planOf(seriesQuery(series.locationId, series.yearId, systemScope));
    const orderScans = scansOf(plan, 'sales_orders');
    expect(orderScans.length).toBeGreaterThan(0);
    for (const scan of orderScans)
      expect(['Index Scan', 'Index Scan Backward', 'Index Only Scan']).toContain(scan['Node Type']);
    expect(nodesOf(plan).filter((node) => node['Node Type'].includes('Sort'))).toEqual([]);
    expect(orderTableSeqScans(plan)).toEqual([]);
  });

  it('max-number still answers right: the deleted last number counts, free-form numbers do not', async () => {
    const response = await suite.server.http
      .get('/sales-orders/max-number')
      .query({ location_id: series.locationId, year_id: series.yearId })
      .expect(200);
    expect(response.body.data).toEqual({
      max_sales_order_number: series.max,
      next_sales_order_number: `DHK-2026-${String(series.counter + 1).padStart(5, '0')}`,
      year_id: series.yearId,
      location_id: series.locationId,
    });
  });

  it('the licence quota reads the running totals of the window only: never the lines of other orders, nor the orders table', async () => {
    // The product's history: far more lines than days in the window.
    expect(licensedLines).toBeGreaterThan(10_000);
    for (const exclude of [undefined, 12_345]) {
      const plan = await planOf(productLicencesQuery([licensed.id], parseCalendarDate(ORDER_DATE), exclude));
      expect(scansOf(plan, 'sales_orders')).toEqual([]);
      expect(orderTableSeqScans(plan)).toEqual([]);
      // The totals: an index range over the product's days in the window, folded and not yet folded.
      for (const table of ['licence_holdings', 'licence_holding_changes']) {
        const scans = scansOf(plan, table);
        expect(scans, table).toHaveLength(1);
        expect(scans[0]!['Node Type']).toMatch(/Index/);
        expect(scans[0]!['Index Cond']).toMatch(/product_id = .*order_date >= .*order_date <= /);
        // At most a row a day of the window (92 days), whatever the number of lines.
        expect(scans[0]!['Plan Rows']).toBeLessThan(200);
      }
      // The lines only of the order left out, by its id.
      for (const scan of scansOf(plan, 'sales_order_details')) expect(scan['Index Cond']).toMatch(/sales_order_id = /);
      if (exclude === undefined) expect(scansOf(plan, 'sales_order_details')).toEqual([]);
    }
  });

  it('the licence quota still answers right: confirmed and closed orders in the window, exactly', async () => {
    const [expected] = await suite.server.database.prisma.$queryRaw<{ used: string }[]>`
      SELECT SUM(d.quantity)::text AS used FROM sales_order_details d JOIN sales_orders o ON o.id = d.sales_order_id
      WHERE d.product_id = ${licensed.id} AND o.deleted_at IS NULL AND o.status IN ('confirmed', 'closed')
        AND o.sales_order_date BETWEEN ${LICENCE.validFrom}::date AND ${LICENCE.validTo}::date`;
    const response = await suite.server.http
      .post('/sales-orders/validate-licence')
      .send({
        sales_order_date: ORDER_DATE,
        sales_order_details: [{ product_id: licensed.id, quantity: 100_000 }],
      })
      .expect(200);
    const [warning] = response.body.data.warnings as { message: string }[];
    const used = toDecimal(expected!.used);
    expect(used.greaterThan(0)).toBe(true);
    expect(warning!.message).toContain(`(100000 licensed, ${used.toFixed()} on orders)`);
  });
});
