import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { systemScope } from '../src/auth/scope.js';
import { orderReadStore } from '../src/orders/store/order-read-store.js';
import { createFixtures, type Fixtures, ORDER_DATE, orderBody } from './support/fixtures.js';
import { type QueryCountingServer, startQueryCountingServer } from './support/query-counting-server.js';

/**
 * GET /sales-orders/:id and GET /sales-orders/max-number are one database round trip each,
 * counted at the service's Prisma client, whatever the line count; decimals come back exact.
 */
describe('order reads: one statement each', () => {
  let server: QueryCountingServer;
  let fixtures: Fixtures;

  beforeAll(async () => {
    server = await startQueryCountingServer();
    fixtures = await createFixtures(server.database.prisma);
  });
  afterAll(() => server?.close());

  const lines = (count: number) =>
    Array.from({ length: count }, (_, index) => ({
      product_id: index % 2 === 0 ? fixtures.products.product.id : fixtures.products.otherProduct.id,
      quantity: index + 1,
      rate: 2.5,
    }));

  const create = async (body: Record<string, unknown>): Promise<number> =>
    (await server.http.post('/sales-orders').send(orderBody(fixtures, body)).expect(201)).body.data.sales_order_id;

  it.each([5, 500])('reads an order of %i lines in exactly one statement, lines in order', async (count) => {
    const id = await create({ details: lines(count), other_charges: [{ description: 'Freight', amount: 12.5 }] });
    let body: { data: Record<string, unknown> & { details: { product_id: number; quantity: number }[] } } | undefined;
    const statements = await server.queriesDuring(async () => {
      body = (await server.http.get(`/sales-orders/${id}`).expect(200)).body;
    });
    expect(statements).toHaveLength(1);
    expect(body!.data.details.map((line) => line.quantity)).toEqual(lines(count).map((line) => line.quantity));
    expect(body!.data.details.map((line) => line.product_id)).toEqual(lines(count).map((line) => line.product_id));
    expect(body!.data).toMatchObject({
      sales_order_id: id,
      customer_name: fixtures.customers.customer.name,
      sales_order_date: ORDER_DATE,
      other_charges: [{ description: 'Freight', amount: 12.5 }],
      version: 1,
    });
  });

  it('answers every field of every line and charge as stored, in line_no order even when it is not id order', async () => {
    const { product, otherProduct } = fixtures.products;
    const id = await create({
      details: [
        {
          product_id: product.id,
          packsize_id: fixtures.packsizes.packsize.id,
          quantity: 1.5,
          rate: 20,
          remarks: 'first',
        },
        { product_id: otherProduct.id, quantity: 2, rate: 7.25 },
        {
          product_id: otherProduct.id,
          packsize_id: fixtures.packsizes.otherPacksize.id,
          quantity: 3,
          rate: 0.5,
          remarks: 'third',
        },
      ],
      other_charges: [
        { description: 'Freight', amount: 12.5 },
        { description: 'Discount', amount: -2 },
      ],
    });
    // The host moves the first line to the end and the first charge after the second: the
    // answer must follow line_no, not the ids or the insertion order.
    await server.database.prisma.$executeRaw`
      UPDATE sales_order_details SET line_no = 99 WHERE sales_order_id = ${id} AND line_no = 1`;
    await server.database.prisma.$executeRaw`
      UPDATE sales_order_other_charges SET line_no = 99 WHERE sales_order_id = ${id} AND line_no = 1`;

    const stored = await server.database.prisma.$queryRaw<
      {
        id: number;
        product_id: number;
        name: string;
        packsize_id: number | null;
        quantity: string;
        rate: string;
        amount: string;
        remarks: string | null;
      }[]
    >`SELECT d.id, d.product_id, p.name, d.packsize_id, d.quantity::text, d.rate::text, d.amount::text, d.remarks
      FROM sales_order_details d JOIN products p ON p.id = d.product_id
      WHERE d.sales_order_id = ${id} ORDER BY d.line_no`;
    const storedCharges = await server.database.prisma.$queryRaw<{ id: number; description: string; amount: string }[]>`
      SELECT id, description, amount::text FROM sales_order_other_charges WHERE sales_order_id = ${id} ORDER BY line_no`;
    expect(stored.map((line) => line.remarks)).toEqual([null, 'third', 'first']);

    const order = (await server.http.get(`/sales-orders/${id}`).expect(200)).body.data;
    expect(order.details).toEqual(
      stored.map((line) => ({
        sales_order_detail_id: line.id,
        product_id: line.product_id,
        product_name: line.name,
        packsize_id: line.packsize_id,
        quantity: Number(line.quantity),
        rate: Number(line.rate),
        amount: Number(line.amount),
        remarks: line.remarks,
        // Nothing delivered yet: everything ordered is pending.
        delivered_quantity: 0,
        returned_quantity: 0,
        pending_quantity: Number(line.quantity),
        short_closed_quantity: 0,
      })),
    );
    expect(order.other_charges).toEqual(
      storedCharges.map((charge) => ({
        other_charge_id: charge.id,
        description: charge.description,
        amount: Number(charge.amount),
      })),
    );
    expect(order.other_charges.map((charge: { description: string }) => charge.description)).toEqual([
      'Discount',
      'Freight',
    ]);
  });

  it('answers 404 for a deleted or unknown order, in one statement', async () => {
    const id = await create({});
    await server.http.delete(`/sales-orders/${id}`).expect(200);
    for (const missing of [id, 2_000_000_000]) {
      const statements = await server.queriesDuring(() => server.http.get(`/sales-orders/${missing}`).expect(404));
      expect(statements).toHaveLength(1);
    }
  });

  it('returns many-digit decimals exactly, through the API and in the text the statement renders', async () => {
    const id = await create({
      details: [
        { product_id: fixtures.products.product.id, quantity: 0.001, rate: 9_999_999_999.9999 },
        { product_id: fixtures.products.otherProduct.id, quantity: 999_999_999.999, rate: 0.0001 },
        { product_id: fixtures.products.product.id, quantity: 123_456.789, rate: 98_765.4321 },
        { product_id: fixtures.products.product.id, quantity: 0.1, rate: 1 },
        { product_id: fixtures.products.product.id, quantity: 0.2, rate: 1 },
      ],
      other_charges: [{ description: 'Round-off', amount: -0.01 }],
    });
    const order = (await server.http.get(`/sales-orders/${id}`).expect(200)).body.data;
    expect(order.details.map((line: { amount: number }) => line.amount)).toEqual([
      10_000_000, 100_000, 12_193_263_111.26, 0.1, 0.2,
    ]);
    expect(order.subtotal).toBe(12_203_363_111.56);
    expect(order.grand_total).toBe(12_203_363_111.55);

    // Values only host SQL can write (more digits than a double holds): the statement renders
    // them into the answer's text exactly as stored (without trailing zeros), and the service
    // passes that text on unparsed; converting them to JavaScript numbers on the way would round them.
    await server.database.prisma.$executeRaw`
      UPDATE sales_order_details SET quantity = 123456789012345.678, rate = 12345678901234.5678, amount = 1234567890123456.78
      WHERE sales_order_id = ${id} AND line_no = 1`;
    await server.database.prisma.$executeRaw`
      UPDATE sales_orders SET subtotal = 9999999999999999.99, grand_total = 1234567890123456.71 WHERE id = ${id}`;
    const rendered = (await orderReadStore.findLive(server.database.prisma, id, systemScope))!.json.text;
    const answered = (await server.http.get(`/sales-orders/${id}`).expect(200)).text;
    for (const text of [rendered, answered]) {
      const decimals = (key: string) => [...text.matchAll(new RegExp(`"${key}":(-?[0-9.]+)`, 'g'))].map((m) => m[1]);
      expect(decimals('quantity')).toEqual(['123456789012345.678', '999999999.999', '123456.789', '0.1', '0.2']);
      expect(decimals('rate')).toEqual(['12345678901234.5678', '0.0001', '98765.4321', '1', '1']);
      expect(decimals('amount')).toEqual(['1234567890123456.78', '100000', '12193263111.26', '0.1', '0.2', '-0.01']);
      expect(decimals('subtotal')).toEqual(['9999999999999999.99']);
      expect(decimals('other_charges_total')).toEqual(['-0.01']);
      expect(decimals('grand_total')).toEqual(['1234567890123456.71']);
    }
    expect(answered).toBe(`{"success":true,"data":${rendered}}`);
  });

  it('answers max-number in one statement: deleted orders count, free-form numbers do not', async () => {
    const { dhaka } = fixtures.locations;
    const { currentYear } = fixtures.years;
    const query = { location_id: dhaka.id, year_id: currentYear.id };
    const before = (await server.http.get('/sales-orders/max-number').query(query).expect(200)).body.data;
    const last = await create({ details: lines(1) });
    const { sales_order_no: lastNumber } = (await server.http.get(`/sales-orders/${last}`).expect(200)).body.data;
    await server.http.delete(`/sales-orders/${last}`).expect(200);
    await create({ details: lines(1), sales_order_no: 'ZZZ-FREE-999999' });

    let answer: Record<string, unknown> | undefined;
    const statements = await server.queriesDuring(async () => {
      answer = (await server.http.get('/sales-orders/max-number').query(query).expect(200)).body.data;
    });
    expect(statements).toHaveLength(1);
    expect(answer).toEqual({
      max_sales_order_number: lastNumber,
      next_sales_order_number: lastNumber.replace(/\d+$/, (digits: string) =>
        String(Number(digits) + 1).padStart(digits.length, '0'),
      ),
      year_id: currentYear.id,
      location_id: dhaka.id,
    });
    expect(answer!.max_sales_order_number).not.toBe(before.max_sales_order_number);

    // A series with no order yet: no max, the first number next.
    const empty = (
      await server.http
        .get('/sales-orders/max-number')
        .query({ location_id: fixtures.locations.chattogram.id, year_id: fixtures.years.previousYear.id })
        .expect(200)
    ).body.data;
    expect(empty).toMatchObject({ max_sales_order_number: null, next_sales_order_number: 'CTG-2025-00001' });
  });

  it('refuses an unknown location and year together, in one statement', async () => {
    let response: { status: number; body: { error: { details: { path: string }[] } } } | undefined;
    const statements = await server.queriesDuring(async () => {
      response = await server.http.get('/sales-orders/max-number').query({ location_id: 999_999, year_id: 999_999 });
    });
    expect(statements).toHaveLength(1);
    expect(response!.status).toBe(422);
    expect(response!.body.error.details.map((detail) => detail.path).sort()).toEqual(['location_id', 'year_id']);
  });

  it('answers an order history in one statement: entries oldest first, deleted orders included, 404 only when never created', async () => {
    const id = await create({});
    await server.http.put(`/sales-orders/${id}`).send({ remarks: 'second' }).expect(200);
    await server.http.delete(`/sales-orders/${id}`).expect(200);
    let entries: { version: number; action: string; at: string }[] = [];
    const statements = await server.queriesDuring(async () => {
      entries = (await server.http.get(`/sales-orders/${id}/history`).expect(200)).body.data.entries;
    });
    expect(statements).toHaveLength(1);
    expect(entries.map(({ version, action }) => [version, action])).toEqual([
      [1, 'create'],
      [2, 'update'],
      [3, 'delete'],
    ]);
    expect(entries[0]!.at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);

    // An order the host wrote in SQL has no entries: an empty history, not a 404.
    const [hostOrder] = await server.database.prisma.$queryRaw<{ id: number }[]>`
      INSERT INTO sales_orders (sales_order_no, location_id, financial_year_id, customer_id, sales_order_date,
                                subtotal, other_charges_total, grand_total)
      VALUES ('HOST-1', ${fixtures.locations.dhaka.id}, ${fixtures.years.currentYear.id},
              ${fixtures.customers.customer.id}, ${ORDER_DATE}::date, 0, 0, 0)
      RETURNING id`;
    const empty = await server.queriesDuring(async () => {
      const response = await server.http.get(`/sales-orders/${hostOrder!.id}/history`).expect(200);
      expect(response.body.data).toEqual({ sales_order_id: hostOrder!.id, entries: [], next_cursor: null });
    });
    expect(empty).toHaveLength(1);
    const missing = await server.queriesDuring(() => server.http.get('/sales-orders/2000000000/history').expect(404));
    expect(missing).toHaveLength(1);
  });
});
