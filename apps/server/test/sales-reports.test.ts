import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';

import { Decimal } from '../src/shared/money.js';
import { createApiKey } from './support/credentials.js';
import { cancelDelivery, recordDelivery, recordReturn } from './support/deliveries.js';
import { orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';
import { signJwt } from './support/tokens.js';

/**
 * GET /reports/sales against PostgreSQL through the HTTP stack: the unit rule, exact sums, lines
 * with several deliveries and returns counted once, pending never below 0 per line, scope before
 * grouping (by JWT claim and by API key), the sums equal to the order list's, keyset pages and
 * permissions. CSV is sales-reports-csv.test.ts.
 */

const suite = useServerWithFixtures();
const report = (query: Record<string, string>, headers?: Record<string, string>) => {
  const call = headers
    ? request(suite.server.api).get('/reports/sales').set(headers)
    : suite.server.http.get('/reports/sales');
  return call.query(query);
};
const details = (body: { error: { details: { code: string; path: string }[] } }) =>
  body.error.details.map(({ code, path }) => `${path}:${code}`);

type Row = Record<string, number | string | null>;

/** Adds the metric over rows exactly (decimal.js), as text: what the totals must say. */
const sumOf = (rows: Row[], metric: string) => rows.reduce((sum, row) => sum.plus(String(row[metric])), new Decimal(0));

describe('sales reports', () => {
  const create = async (overrides: Record<string, unknown>) => {
    const created = await suite.server.http
      .post('/sales-orders')
      .send(orderBody(suite.fixtures, { status: 'confirmed', acknowledge_warnings: true, ...overrides }))
      .expect(201);
    const id = created.body.data.sales_order_id as number;
    const order = await suite.server.http.get(`/sales-orders/${id}`).expect(200);
    return {
      id,
      lines: (order.body.data.details as { sales_order_detail_id: number }[]).map((d) => d.sales_order_detail_id),
    };
  };

  describe('the unit rule and what a request may ask for', () => {
    it('refuses a quantity without product among the group keys: 400 quantity_needs_product', async () => {
      for (const metrics of [
        'ordered_quantity',
        'order_count,pending_quantity',
        'delivered_quantity,returned_quantity',
      ]) {
        const refused = await report({ group_by: 'location,customer', metrics }).expect(400);
        expect(refused.body.success).toBe(false);
        expect(details(refused.body)).toEqual(['metrics:quantity_needs_product']);
      }
      const month = await report({ group_by: 'month', metrics: 'ordered_quantity' }).expect(400);
      expect(details(month.body)).toEqual(['metrics:quantity_needs_product']);
      // With product it adds units of one product only: allowed.
      await report({ group_by: 'location,product', metrics: 'ordered_quantity,pending_quantity' }).expect(200);
    });

    it("refuses an order's charges by product, and undated metrics by delivery date", async () => {
      const byProduct = await report({ group_by: 'product' }).expect(400);
      expect(details(byProduct.body)).toEqual(['metrics:total_not_by_product']);
      const undated = await report({
        group_by: 'product',
        metrics: 'ordered_quantity',
        date_basis: 'delivery_date',
      }).expect(400);
      expect(details(undated.body)).toEqual(['metrics:not_by_delivery_date']);
    });

    it('refuses unknown, repeated or too many keys and metrics, and a sort it was not asked for', async () => {
      const cases: [Record<string, string>, string][] = [
        [{ group_by: 'depot' }, 'group_by'],
        [{ group_by: 'location,location' }, 'group_by'],
        [{ group_by: 'location,customer,month,day' }, 'group_by'],
        [{ group_by: '' }, 'group_by'],
        [{ group_by: 'location', metrics: 'order_count,order_count' }, 'metrics'],
        [{ group_by: 'location', metrics: 'profit' }, 'metrics'],
        [{ group_by: 'location', sort: 'subtotal' }, 'sort'],
        [{ group_by: 'location', sort: 'customer' }, 'sort'],
        [{ group_by: 'location', limit: '1001' }, 'limit'],
        [{ group_by: 'location', date_basis: 'invoice_date' }, 'date_basis'],
        [{ group_by: 'location', include_total: 'true' }, 'include_total'],
      ];
      for (const [query, path] of cases) {
        const refused = await report(query);
        expect(refused.status, JSON.stringify(query)).toBe(400);
        expect(refused.body.error.details.map((detail: { path: string }) => detail.path)).toContain(path);
      }
      await report({}).expect(400);
    });
  });

  describe('exact sums', () => {
    let orders: { id: number; lines: number[] }[];
    const customerIds = () => ({ customer_id: String(suite.fixtures.customers.otherCustomer.id) });

    beforeAll(async () => {
      // Amounts whose float sum is not exact: 0.1 + 0.2, and charges of 0.07 thirty times.
      orders = [];
      for (let index = 0; index < 30; index += 1) {
        orders.push(
          await create({
            customer_id: suite.fixtures.customers.otherCustomer.id,
            details: [
              { product_id: suite.fixtures.products.otherProduct.id, quantity: 1, rate: index % 2 === 0 ? 0.1 : 0.2 },
            ],
            other_charges: [{ description: 'Carriage', amount: 0.07 }],
          }),
        );
      }
    }, 120_000);

    it('adds money in SQL numerics: to the cent, whatever a float would say', async () => {
      const answer = await report({
        group_by: 'customer',
        metrics: 'order_count,subtotal,other_charges_total,grand_total',
        ...customerIds(),
      }).expect(200);
      expect(answer.body.data.rows).toEqual([
        {
          customer_id: suite.fixtures.customers.otherCustomer.id,
          customer_name: 'Karim Agro Centre',
          order_count: 30,
          subtotal: 4.5,
          other_charges_total: 2.1,
          grand_total: 6.6,
        },
      ]);
      // 0.1 + 0.2 + ... in floats is not 4.5 exactly; the answer's text is.
      expect(answer.text).toContain('"subtotal":4.5,"other_charges_total":2.1,"grand_total":6.6');
      expect(answer.body.data.totals).toEqual({
        order_count: 30,
        subtotal: 4.5,
        other_charges_total: 2.1,
        grand_total: 6.6,
      });
      expect(answer.body.data.next_cursor).toBeNull();
    });
  });

  describe('deliveries and returns', () => {
    let order: { id: number; lines: number[] };
    let productIds: number[];

    beforeAll(async () => {
      // One line of 10 (product) and one of 2.5 (other product), at a customer of its own.
      const customer = await suite.server.database.prisma.customer.create({
        data: { code: 'C-DLV', name: 'Delivery Test Store' },
      });
      order = await create({ customer_id: customer.id });
      productIds = [suite.fixtures.products.product.id, suite.fixtures.products.otherProduct.id];
      const [first, second] = order.lines as [number, number];
      // Three deliveries of the first line (2 + 3 + 1 on three days), two returns of it (1 + 1);
      // a fourth delivery cancelled; the second line delivered 3 of its 2.5 (over by 0.5).
      const a = await recordDelivery(suite.server.database.prisma, {
        orderId: order.id,
        date: '2026-11-16',
        lines: [{ detailId: first, quantity: '2' }],
      });
      const b = await recordDelivery(suite.server.database.prisma, {
        orderId: order.id,
        date: '2026-11-20',
        lines: [
          { detailId: first, quantity: '3' },
          { detailId: second, quantity: '3' },
        ],
      });
      await recordDelivery(suite.server.database.prisma, {
        orderId: order.id,
        date: '2026-12-02',
        lines: [{ detailId: first, quantity: '1' }],
      });
      const cancelled = await recordDelivery(suite.server.database.prisma, {
        orderId: order.id,
        date: '2026-11-21',
        lines: [{ detailId: first, quantity: '4' }],
      });
      await cancelDelivery(suite.server.database.prisma, cancelled.deliveryId);
      await recordReturn(suite.server.database.prisma, {
        deliveryId: a.deliveryId,
        date: '2026-11-25',
        lines: [{ deliveryLineId: a.lineIds[0]!, quantity: '1' }],
      });
      await recordReturn(suite.server.database.prisma, {
        deliveryId: b.deliveryId,
        date: '2026-12-03',
        lines: [{ deliveryLineId: b.lineIds[0]!, quantity: '1' }],
      });
      (order as { customer?: number }).customer = customer.id;
    }, 120_000);

    const customer = () => String((order as { customer?: number }).customer);

    it('counts a line with three deliveries and two returns once; pending never below 0 per line', async () => {
      const answer = await report({
        group_by: 'product',
        metrics:
          'order_count,line_count,ordered_quantity,delivered_quantity,returned_quantity,pending_quantity,subtotal',
        customer_id: customer(),
        sort: 'product',
      }).expect(200);
      const byProduct = Object.fromEntries(answer.body.data.rows.map((row: Row) => [row.product_id, row]));
      expect(byProduct[productIds[0]!]).toMatchObject({
        order_count: 1,
        line_count: 1,
        ordered_quantity: 10,
        delivered_quantity: 6,
        returned_quantity: 2,
        // 10 - (6 - 2)
        pending_quantity: 6,
        subtotal: 4555,
      });
      // Delivered 3 against 2.5: pending 0, not -0.5.
      expect(byProduct[productIds[1]!]).toMatchObject({
        ordered_quantity: 2.5,
        delivered_quantity: 3,
        returned_quantity: 0,
        pending_quantity: 0,
      });
      // The order counts once however many lines and deliveries it has; pending adds 6 + 0, not 6 - 0.5.
      expect(answer.body.data.totals).toMatchObject({
        order_count: 1,
        line_count: 2,
        pending_quantity: 6,
        subtotal: 7555,
      });
    });

    it('dates deliveries and returns by their own dates with date_basis=delivery_date', async () => {
      const november = await report({
        group_by: 'product,month',
        metrics: 'order_count,delivered_quantity,returned_quantity',
        date_basis: 'delivery_date',
        customer_id: customer(),
        date_from: '2026-11-01',
        date_to: '2026-11-30',
      }).expect(200);
      // In November: 2 and 3 delivered (the cancelled 4 left out), 1 returned; and 3 of the second line.
      expect(november.body.data.rows).toEqual([
        expect.objectContaining({
          product_id: productIds[0],
          month: '2026-11',
          order_count: 1,
          delivered_quantity: 5,
          returned_quantity: 1,
        }),
        expect.objectContaining({
          product_id: productIds[1],
          month: '2026-11',
          delivered_quantity: 3,
          returned_quantity: 0,
        }),
      ]);
      const months = await report({
        group_by: 'month,product',
        metrics: 'delivered_quantity,returned_quantity,line_count',
        date_basis: 'delivery_date',
        customer_id: customer(),
      }).expect(200);
      expect(
        months.body.data.rows.map((row: Row) => [
          row.month,
          row.product_id,
          row.delivered_quantity,
          row.returned_quantity,
        ]),
      ).toEqual([
        ['2026-11', productIds[0], 5, 1],
        ['2026-11', productIds[1], 3, 0],
        ['2026-12', productIds[0], 1, 1],
      ]);
      // Undated by month, the movements add up to the lines' running totals.
      expect(months.body.data.totals).toEqual({ delivered_quantity: 9, returned_quantity: 2, line_count: 2 });
      const byDay = await report({
        group_by: 'day,product',
        metrics: 'delivered_quantity',
        date_basis: 'delivery_date',
        customer_id: customer(),
        date_from: '2026-11-20',
        date_to: '2026-11-21',
      }).expect(200);
      expect(byDay.body.data.rows.map((row: Row) => [row.day, row.delivered_quantity])).toEqual([
        ['2026-11-20', 3],
        ['2026-11-20', 3],
      ]);
    });

    it('groups by the order delivery status', async () => {
      const answer = await report({ group_by: 'delivery_status', customer_id: customer() }).expect(200);
      expect(answer.body.data.rows).toEqual([
        { delivery_status: 'partly_delivered', order_count: 1, grand_total: 7905 },
      ]);
    });
  });

  describe('consistency on generated data', () => {
    /** A small deterministic generator (mulberry32), so a failure can be run again. */
    const random = (() => {
      let seed = 46;
      return () => {
        seed = (seed + 0x6d2b79f5) | 0;
        let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
      };
    })();
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    /** Every order line's quantities, to recount pending from. */
    const lines: { productId: number; quantity: Decimal; delivered: Decimal; returned: Decimal }[] = [];
    let customerId: number;

    beforeAll(async () => {
      const { prisma } = suite.server.database;
      customerId = (await prisma.customer.create({ data: { code: 'C-GEN', name: 'Generated Orders Ltd' } })).id;
      const products = [suite.fixtures.products.product.id, suite.fixtures.products.otherProduct.id];
      const locations = [suite.fixtures.locations.dhaka.id, suite.fixtures.locations.chattogram.id];
      const orders = Array.from({ length: 40 }, (_, index) => ({
        customer_id: customerId,
        location_id: pick(locations),
        sales_order_date: pick(['2026-08-03', '2026-09-14', '2026-11-15', '2026-11-30']),
        status: index % 4 === 0 ? 'draft' : 'confirmed',
        acknowledge_warnings: true,
        details: Array.from({ length: 1 + Math.floor(random() * 3) }, () => ({
          product_id: pick(products),
          quantity: 1 + Math.floor(random() * 40) / 4,
          rate: Math.floor(random() * 100_000) / 100,
        })),
        other_charges: random() < 0.5 ? [] : [{ description: 'Carriage', amount: Math.floor(random() * 5_000) / 100 }],
      }));
      const created = await suite.server.http.post('/sales-orders/bulk').send({ orders }).expect(201);
      const ids: number[] = created.body.data.results.map(
        (result: { order: { sales_order_id: number } }) => result.order.sales_order_id,
      );
      for (const [index, id] of ids.entries()) {
        const order = (await suite.server.http.get(`/sales-orders/${id}`).expect(200)).body.data;
        if (order.status === 'draft') {
          if (index % 8 === 0) await suite.server.http.delete(`/sales-orders/${id}`).expect(200);
          continue;
        }
        if (index % 7 === 3) {
          await suite.server.http.post(`/sales-orders/${id}/cancel`).send({ reason: 'generated' }).expect(200);
          continue;
        }
        for (const detail of order.details as {
          sales_order_detail_id: number;
          product_id: number;
          quantity: number;
        }[]) {
          const line = {
            productId: detail.product_id,
            quantity: new Decimal(detail.quantity),
            delivered: new Decimal(0),
            returned: new Decimal(0),
          };
          lines.push(line);
          // Up to three deliveries of the line, the first with up to two returns.
          for (let count = Math.floor(random() * 4), at = 0; at < count; at += 1) {
            const quantity = new Decimal(Math.floor(random() * 16) + 1).dividedBy(4);
            const made = await recordDelivery(prisma, {
              orderId: id,
              date: pick(['2026-11-20', '2026-12-01']),
              lines: [{ detailId: detail.sales_order_detail_id, quantity: quantity.toString() }],
            });
            line.delivered = line.delivered.plus(quantity);
            if (at === 0)
              for (let returns = Math.floor(random() * 3), each = 0; each < returns; each += 1) {
                const back = quantity.dividedBy(2);
                await recordReturn(prisma, {
                  deliveryId: made.deliveryId,
                  date: '2026-12-05',
                  lines: [{ deliveryLineId: made.lineIds[0]!, quantity: back.toString() }],
                });
                line.returned = line.returned.plus(back);
              }
          }
        }
      }
    }, 300_000);

    const ORDER_METRICS = ['order_count', 'line_count', 'subtotal', 'other_charges_total', 'grand_total'];
    const filterSets = (): Record<string, string>[] => [
      { status: 'draft,confirmed,closed' },
      { status: 'confirmed,cancelled' },
      { status: 'draft', include_deleted: 'true' },
      { status: 'confirmed', location_id: String(suite.fixtures.locations.chattogram.id) },
      { status: 'confirmed,draft', date_from: '2026-09-01', date_to: '2026-11-15' },
      { status: 'confirmed', product_id: String(suite.fixtures.products.product.id) },
      { status: 'confirmed', year_id: String(suite.fixtures.years.currentYear.id), q: 'Generated' },
    ];

    it('adds the rows by location, and by month, up to the totals; order_count is the list total', async () => {
      for (const filters of filterSets()) {
        const query = { customer_id: String(customerId), ...filters };
        const byLocation = await report({ ...query, group_by: 'location', metrics: ORDER_METRICS.join(',') }).expect(
          200,
        );
        const byMonth = await report({ ...query, group_by: 'month,status', metrics: ORDER_METRICS.join(',') }).expect(
          200,
        );
        const { totals } = byLocation.body.data;
        expect(byMonth.body.data.totals, JSON.stringify(filters)).toEqual(totals);
        for (const metric of ORDER_METRICS) {
          expect(sumOf(byLocation.body.data.rows, metric).toNumber(), `${metric} ${JSON.stringify(filters)}`).toBe(
            totals[metric],
          );
          expect(sumOf(byMonth.body.data.rows, metric).toNumber(), `${metric} ${JSON.stringify(filters)}`).toBe(
            totals[metric],
          );
        }
        const list = await suite.server.http
          .get('/sales-orders')
          .query({ ...query, include_total: 'true', limit: '1' })
          .expect(200);
        expect(totals.order_count, JSON.stringify(filters)).toBe(list.body.data.total);
        expect(totals.order_count).toBeGreaterThanOrEqual(0);
      }
      // The default statuses are the live ones: the list's with draft, confirmed and closed.
      const byDefault = await report({ customer_id: String(customerId), group_by: 'location' }).expect(200);
      const live = await report({
        customer_id: String(customerId),
        group_by: 'location',
        status: 'draft,confirmed,closed',
      }).expect(200);
      expect(byDefault.body.data).toEqual(live.body.data);
    });

    it('sums the lines by product as the order lines say, each line once: quantities, pending and amounts', async () => {
      const query = {
        customer_id: String(customerId),
        status: 'confirmed',
        group_by: 'product',
        metrics: 'line_count,ordered_quantity,delivered_quantity,returned_quantity,pending_quantity,subtotal',
      };
      const byProduct = await report(query).expect(200);
      const byOrder = await report({
        customer_id: String(customerId),
        status: 'confirmed',
        group_by: 'location',
        metrics: 'subtotal,line_count',
      }).expect(200);
      expect(byProduct.body.data.totals.subtotal).toBe(byOrder.body.data.totals.subtotal);
      expect(byProduct.body.data.totals.line_count).toBe(byOrder.body.data.totals.line_count);
      expect(byProduct.body.data.totals.line_count).toBe(lines.length);
      for (const row of byProduct.body.data.rows as Row[]) {
        const mine = lines.filter((line) => line.productId === row.product_id);
        const add = (value: (line: (typeof lines)[number]) => Decimal) =>
          mine.reduce((sum, line) => sum.plus(value(line)), new Decimal(0)).toNumber();
        expect(row).toMatchObject({
          line_count: mine.length,
          ordered_quantity: add((line) => line.quantity),
          delivered_quantity: add((line) => line.delivered),
          returned_quantity: add((line) => line.returned),
          pending_quantity: add((line) => Decimal.max(0, line.quantity.minus(line.delivered.minus(line.returned)))),
        });
      }
      // By delivery date, the movements add up to the lines' running totals.
      const moved = await report({
        customer_id: String(customerId),
        status: 'confirmed',
        group_by: 'product,day',
        metrics: 'delivered_quantity,returned_quantity',
        date_basis: 'delivery_date',
      }).expect(200);
      expect(moved.body.data.totals.delivered_quantity).toBe(byProduct.body.data.totals.delivered_quantity);
      expect(moved.body.data.totals.returned_quantity).toBe(byProduct.body.data.totals.returned_quantity);
      expect(byProduct.body.data.totals.delivered_quantity).toBeGreaterThan(0);
      expect(byProduct.body.data.totals.returned_quantity).toBeGreaterThan(0);
    });
  });

  describe('scope first', () => {
    const ids = () => suite.fixtures.locations;

    it("gives a caller limited to Dhaka Dhaka's rows and totals, equal to its own order list's (by JWT claim and by API key)", async () => {
      await create({ location_id: ids().chattogram.id, remarks: 'ctg' });
      await create({ location_id: ids().dhaka.id, remarks: 'dhk' });
      const token = await signJwt({
        payload: { permissions: ['reports.read', 'sales_orders.read'], locations: ['DHK'] },
        subject: 'dhaka-manager',
      });
      const key = await createApiKey(suite.server.database.prisma, ['reports.read', 'sales_orders.read']);
      await suite.server.database.prisma
        .$executeRaw`UPDATE api_keys SET locations = ${[ids().dhaka.id]}::int[] WHERE prefix = ${key.summary.prefix}`;
      const everywhere = await report({ group_by: 'location', status: 'confirmed' }).expect(200);
      expect(everywhere.body.data.rows.map((row: Row) => row.location_name)).toEqual(['Chattogram', 'Dhaka']);
      for (const headers of [{ authorization: `Bearer ${token}` }, { authorization: `ApiKey ${key.key}` }]) {
        const scoped = await report(
          { group_by: 'location,customer', status: 'confirmed', metrics: 'order_count,subtotal,grand_total' },
          headers,
        ).expect(200);
        expect(new Set(scoped.body.data.rows.map((row: Row) => row.location_name))).toEqual(new Set(['Dhaka']));
        expect(scoped.text).not.toContain('Chattogram');
        // What the caller would add up from its own list with the same filters.
        const items: Row[] = [];
        let cursor: string | undefined;
        do {
          const page = await request(suite.server.api)
            .get('/sales-orders')
            .set(headers)
            .query({ status: 'confirmed', limit: '200', include_total: 'true', ...(cursor ? { cursor } : {}) })
            .expect(200);
          items.push(...page.body.data.items);
          cursor = page.body.data.next_cursor ?? undefined;
        } while (cursor);
        expect(items.every((item) => item.location_id === ids().dhaka.id)).toBe(true);
        expect(scoped.body.data.totals).toEqual({
          order_count: items.length,
          subtotal: sumOf(items, 'subtotal').toNumber(),
          grand_total: sumOf(items, 'grand_total').toNumber(),
        });
        const dhakaRow = everywhere.body.data.rows.find((row: Row) => row.location_name === 'Dhaka');
        expect(scoped.body.data.totals.grand_total).toBe(dhakaRow.grand_total);
        // Naming Chattogram does not widen it: nothing.
        const other = await report({ group_by: 'location', location_id: String(ids().chattogram.id) }, headers).expect(
          200,
        );
        expect(other.body.data).toEqual({ rows: [], totals: { order_count: 0, grand_total: 0 }, next_cursor: null });
      }
    });

    it('needs reports.read, and not sales_orders.read', async () => {
      const manager = await signJwt({ payload: { permissions: ['reports.read'] }, subject: 'manager' });
      await report({ group_by: 'location' }, { authorization: `Bearer ${manager}` }).expect(200);
      const clerk = await signJwt({ payload: { permissions: ['sales_orders.read'] }, subject: 'clerk' });
      const refused = await report({ group_by: 'location' }, { authorization: `Bearer ${clerk}` }).expect(403);
      expect(details(refused.body)).toEqual([':missing_permission']);
      await request(suite.server.api).get('/reports/sales').query({ group_by: 'location' }).expect(401);
    });
  });

  describe('pages', () => {
    it('walks every row once in the asked order with the keyset cursor; totals on every page are of all rows', async () => {
      const query = {
        group_by: 'location,customer,month',
        metrics: 'order_count,grand_total',
        sort: '-grand_total',
        status: 'draft,confirmed,closed,cancelled',
      };
      const whole = await report({ ...query, limit: '1000' }).expect(200);
      expect(whole.body.data.rows.length).toBeGreaterThan(3);
      const walked: Row[] = [];
      let cursor: string | undefined;
      do {
        const page = await report({ ...query, limit: '2', ...(cursor ? { cursor } : {}) }).expect(200);
        expect(page.body.data.rows.length).toBeLessThanOrEqual(2);
        expect(page.body.data.totals).toEqual(whole.body.data.totals);
        walked.push(...page.body.data.rows);
        cursor = page.body.data.next_cursor ?? undefined;
      } while (cursor);
      expect(walked).toEqual(whole.body.data.rows);
      const totals = whole.body.data.rows.map((row: Row) => Number(row.grand_total));
      expect(totals).toEqual([...totals].sort((a, b) => b - a));
    });

    it('refuses a cursor that was altered or belongs to another sort or grouping', async () => {
      const first = await report({ group_by: 'location,customer', limit: '1' }).expect(200);
      const cursor = first.body.data.next_cursor as string;
      expect(cursor).toEqual(expect.any(String));
      const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString());
      const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      for (const [query, bad] of [
        [{ group_by: 'location,customer', sort: '-location' }, cursor],
        [{ group_by: 'location,customer,month' }, cursor],
        [{ group_by: 'location,customer' }, forged({ ...decoded, v: [...decoded.v.slice(0, -1), 'x'] })],
        [{ group_by: 'location,customer' }, forged({ ...decoded, v: [...decoded.v, 1] })],
        [{ group_by: 'location,customer' }, forged({ ...decoded, v: decoded.v.map(() => 2 ** 40) })],
        [{ group_by: 'location,customer' }, 'not-a-cursor!'],
      ] as [Record<string, string>, string][]) {
        const refused = await report({ ...query, cursor: bad }).expect(400);
        expect(details(refused.body)).toEqual(['cursor:custom']);
      }
    });
  });
});
