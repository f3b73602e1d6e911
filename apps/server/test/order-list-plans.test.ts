import { LIST_TOTAL_CAP, type ListCursor, type ListSort } from '@sales-order/contract';
import { beforeAll, describe, expect, it } from 'vitest';

import { loadBulkOrders } from '../scripts/bulk-orders.js';
import type { Prisma } from '../src/generated/prisma/client.js';
import { countQuery, type OrderListFilter, pageQuery } from '../src/orders/store/order-list-store.js';
import { withOwnConnection } from './support/postgres-server.js';
import { explain, nodesOf, orderTableSeqScans } from './support/query-plans.js';
import { useServerWithFixtures } from './support/test-server.js';

const ORDERS = 200_000;
const CUSTOMERS = 500;
const PRODUCTS = 200;

/**
 * The list's query plans on a real PostgreSQL with 200,000 orders loaded (in SQL, for this file
 * only), so that the planner's choices are the ones production sees: no sequential scan of the
 * orders or their lines for any filter or sort, and no sort over the whole set for the sorts.
 * Timings are the benchmark's business (pnpm bench), not this test's.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)(
  'GET /sales-orders query plans with 200,000 orders (needs TEST_DATABASE_URL)',
  () => {
    const suite = useServerWithFixtures();
    let firstCustomer: number;
    let firstProduct: number;

    beforeAll(async () => {
      const { prisma } = suite.server.database;
      const { locations } = suite.fixtures;
      await prisma.$executeRaw`INSERT INTO customers (code, name) SELECT 'BC' || g, 'Bulk Customer ' || md5(g::text) FROM generate_series(1, ${CUSTOMERS}::int) g`;
      await prisma.$executeRaw`INSERT INTO products (code, name) SELECT 'BP' || g, 'Bulk Product ' || g FROM generate_series(1, ${PRODUCTS}::int) g`;
      const customers = await prisma.customer.findMany({
        where: { code: { startsWith: 'BC' } },
        orderBy: { id: 'asc' },
        select: { id: true },
      });
      const products = await prisma.product.findMany({
        where: { code: { startsWith: 'BP' } },
        orderBy: { id: 'asc' },
        select: { id: true },
      });
      firstCustomer = customers[0]!.id;
      firstProduct = products[0]!.id;
      await withOwnConnection(prisma, (client) =>
        loadBulkOrders((sql, params) => client.query(sql, params), {
          orders: ORDERS,
          customerIds: customers.map((customer) => customer.id),
          productIds: products.map((product) => product.id),
          locationIds: [locations.dhaka.id, locations.chattogram.id],
          // Both fixture financial years.
          firstDay: '2025-07-01',
          days: 730,
        }),
      );
    }, 300_000);

    const planOf = (query: Prisma.Sql) => explain(suite.server.database.prisma, query);

    const live: OrderListFilter = { scope: null, includeDeleted: false };
    const cursors: Record<ListSort, ListCursor> = {
      '-sales_order_date': { s: '-sales_order_date', k: '2026-03-01', i: 100_000 },
      sales_order_date: { s: 'sales_order_date', k: '2026-03-01', i: 100_000 },
      '-updated_at': { s: '-updated_at', k: '2026-01-20T00:00:00.000Z', i: 100_000 },
      updated_at: { s: 'updated_at', k: '2026-01-20T00:00:00.000Z', i: 100_000 },
      '-grand_total': { s: '-grand_total', k: '5000.00', i: 100_000 },
      grand_total: { s: 'grand_total', k: '5000.00', i: 100_000 },
      sales_order_no: { s: 'sales_order_no', k: 'BLK-0100000', i: 100_000 },
    };

    it('walks an index for every sort, first page and later pages alike: no sequential scan, no sort', async () => {
      for (const sort of Object.keys(cursors) as ListSort[]) {
        for (const cursor of [undefined, cursors[sort]]) {
          for (const filter of [live, { scope: null, includeDeleted: true }, { scope: [1], includeDeleted: false }]) {
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
        { scope: null, includeDeleted: true, updatedSince: new Date('2026-03-20T00:00:00Z') },
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
  },
);
