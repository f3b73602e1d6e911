import { describe, expect, it } from 'vitest';

import { orderBody, PREVIOUS_YEAR_DATE } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';

describe('exact decimal arithmetic', () => {
  const suite = useServerWithFixtures();

  const cases = [
    // 3 x 33.333 = 99.999 -> 100.00, where floats give 99.99900000000001
    { name: '3 x 33.333', details: [{ quantity: 3, rate: 33.333 }], charges: [], subtotal: 100, grand: 100 },
    // 0.1 + 0.2 is 0.30000000000000004 in floats
    {
      name: '0.1 + 0.2',
      details: [
        { quantity: 1, rate: 0.1 },
        { quantity: 1, rate: 0.2 },
      ],
      charges: [],
      subtotal: 0.3,
      grand: 0.3,
    },
    // half-up, where 2.675 is 2.67499999... as a double and banker's rounding gives 2.67
    { name: 'half-up 2.675', details: [{ quantity: 1, rate: 2.675 }], charges: [], subtotal: 2.68, grand: 2.68 },
    { name: 'half-up 0.005', details: [{ quantity: 0.5, rate: 0.01 }], charges: [], subtotal: 0.01, grand: 0.01 },
    // each line rounds before summing: 3 x (0.333 x 1 = 0.33) = 0.99, not round(0.999) = 1.00
    {
      name: 'per-line rounding',
      details: [
        { quantity: 1, rate: 0.333 },
        { quantity: 1, rate: 0.333 },
        { quantity: 1, rate: 0.333 },
      ],
      charges: [],
      subtotal: 0.99,
      grand: 0.99,
    },
    {
      name: 'charges with a discount',
      details: [{ quantity: 7, rate: 14.2857 }],
      charges: [{ amount: 0.1 }, { amount: 0.2 }, { amount: -0.3 }],
      subtotal: 100,
      grand: 100,
    },
    {
      name: 'large exact values',
      details: [{ quantity: 999_999.999, rate: 9_999.9999 }],
      charges: [{ amount: 0.01 }],
      subtotal: 9_999_999_890,
      grand: 9_999_999_890.01,
    },
  ];

  it.each(cases)('calculate-totals: $name', async ({ details, charges, subtotal, grand }) => {
    const response = await suite.server.http
      .post('/sales-orders/calculate-totals')
      .send({ details, other_charges: charges });
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({
      subtotal,
      other_charges_total: Number((grand - subtotal).toFixed(2)),
      grand_total: grand,
    });
  });

  it.each(cases)('create stores the same totals: $name', async ({ details, charges, subtotal, grand }) => {
    const body = orderBody(suite.fixtures, {
      details: details.map((line) => ({ product_id: suite.fixtures.products.otherProduct.id, ...line })),
      other_charges: charges.map((charge, index) => ({ description: `Charge ${index + 1}`, ...charge })),
      grand_total: grand,
    });
    const created = await suite.server.http.post('/sales-orders').send(body);
    expect(created.status).toBe(201);
    expect(created.body.data.total_amount).toBe(grand);

    const order = (await suite.server.http.get(`/sales-orders/${created.body.data.sales_order_id}`)).body.data;
    expect(order.subtotal).toBe(subtotal);
    expect(order.grand_total).toBe(grand);
    // What the database holds is the exact decimal text, not a float's approximation.
    const [row] = await suite.server.database.prisma.$queryRaw<{ subtotal: string; grand_total: string }[]>`
      SELECT subtotal::text, grand_total::text FROM sales_orders WHERE id = ${created.body.data.sales_order_id}`;
    expect(row).toEqual({ subtotal: subtotal.toFixed(2), grand_total: grand.toFixed(2) });
  });

  it('keeps quantity and rate scales exactly as sent', async () => {
    const created = await suite.server.http.post('/sales-orders').send(
      orderBody(suite.fixtures, {
        details: [{ product_id: suite.fixtures.products.otherProduct.id, quantity: 0.001, rate: 0.0001 }],
        other_charges: [],
      }),
    );
    const order = (await suite.server.http.get(`/sales-orders/${created.body.data.sales_order_id}`)).body.data;
    expect(order.details[0]).toMatchObject({ quantity: 0.001, rate: 0.0001, amount: 0 });
  });
});

describe('order numbering', () => {
  const suite = useServerWithFixtures();

  const maxNumber = async (locationId: number, yearId: number) =>
    (await suite.server.http.get(`/sales-orders/max-number?year_id=${yearId}&location_id=${locationId}`).expect(200))
      .body.data;

  it('gives 50 parallel creates in one series 50 distinct consecutive numbers', async () => {
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures))),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(50).fill(201));
    const numbers = responses.map((response) => response.body.data.order_number as string).sort();
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, index) => `DHK-2026-${String(index + 1).padStart(5, '0')}`));

    const max = await maxNumber(suite.fixtures.locations.dhaka.id, suite.fixtures.years.currentYear.id);
    expect(max.max_sales_order_number).toBe('DHK-2026-00050');
    expect(max.next_sales_order_number).toBe('DHK-2026-00051');
  });

  it('orders max-number numerically: ...-00010 above ...-00009', async () => {
    const body = orderBody(suite.fixtures, {
      location_id: suite.fixtures.locations.chattogram.id,
      sales_order_date: PREVIOUS_YEAR_DATE,
    });
    for (let index = 0; index < 10; index += 1) await suite.server.http.post('/sales-orders').send(body).expect(201);
    const max = await maxNumber(suite.fixtures.locations.chattogram.id, suite.fixtures.years.previousYear.id);
    expect(max.max_sales_order_number).toBe('CTG-2025-00010');
  });

  it('orders supplied numbers of the series numerically: ...-10 above ...-9, and moves the counter past them', async () => {
    const body = (number: string) =>
      orderBody(suite.fixtures, {
        location_id: suite.fixtures.locations.dhaka.id,
        sales_order_date: PREVIOUS_YEAR_DATE,
        sales_order_no: number,
      });
    await suite.server.http.post('/sales-orders').send(body('DHK-2025-9')).expect(201);
    await suite.server.http.post('/sales-orders').send(body('DHK-2025-10')).expect(201);
    await suite.server.http.post('/sales-orders').send(body('DHK-2025-2')).expect(201);

    const max = await maxNumber(suite.fixtures.locations.dhaka.id, suite.fixtures.years.previousYear.id);
    expect(max.max_sales_order_number).toBe('DHK-2025-00010');
    expect(max.next_sales_order_number).toBe('DHK-2025-00011');

    const next = await suite.server.http
      .post('/sales-orders')
      .send(
        orderBody(suite.fixtures, {
          location_id: suite.fixtures.locations.dhaka.id,
          sales_order_date: PREVIOUS_YEAR_DATE,
        }),
      )
      .expect(201);
    expect(next.body.data.order_number).toBe('DHK-2025-00011');
  });

  it('never reuses the number of a deleted order, which answers 404', async () => {
    const created = await suite.server.http
      .post('/sales-orders')
      .send(orderBody(suite.fixtures, { location_id: suite.fixtures.locations.chattogram.id }))
      .expect(201);
    const { sales_order_id: id, order_number: number } = created.body.data;
    await suite.server.http.delete(`/sales-orders/${id}`).expect(200);
    await suite.server.http.get(`/sales-orders/${id}`).expect(404);

    const max = await maxNumber(suite.fixtures.locations.chattogram.id, suite.fixtures.years.currentYear.id);
    expect(max.max_sales_order_number).toBe(number);

    const next = await suite.server.http
      .post('/sales-orders')
      .send(orderBody(suite.fixtures, { location_id: suite.fixtures.locations.chattogram.id }))
      .expect(201);
    expect(next.body.data.order_number).not.toBe(number);
    expect(next.body.data.order_number).toBe('CTG-2026-00002');

    const reuse = await suite.server.http
      .post('/sales-orders')
      .send(orderBody(suite.fixtures, { location_id: suite.fixtures.locations.chattogram.id, sales_order_no: number }));
    expect(reuse.status).toBe(422);
    expect(reuse.body.error.details[0].code).toBe('duplicate_order_number');
  });
});

describe('transactions', () => {
  const suite = useServerWithFixtures();

  const snapshot = async () => {
    const prisma = suite.server.database.prisma;
    return {
      orders: await prisma.salesOrder.count(),
      lines: await prisma.salesOrderDetail.count(),
      charges: await prisma.salesOrderCharge.count(),
      counters: await prisma.salesOrderCounter.findMany({
        orderBy: [{ locationId: 'asc' }, { financialYearId: 'asc' }],
      }),
    };
  };

  it('leaves nothing behind when the second line is invalid', async () => {
    await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201);
    const before = await snapshot();
    const body = orderBody(suite.fixtures, {
      details: [
        { product_id: suite.fixtures.products.product.id, quantity: 1, rate: 1 },
        { product_id: 999_999, quantity: 1, rate: 1 },
      ],
    });
    await suite.server.http.post('/sales-orders').send(body).expect(422);
    expect(await snapshot()).toEqual(before);
  });

  describe('a create that fails inside its transaction, after the counter moved', () => {
    /**
     * As a host DBA could: a trigger refusing a line of a marker product, but only once the
     * order's series counter stands past `counterBefore`, so the failure provably comes after
     * the counter moved, in the same statement (otherwise the create succeeds and the test
     * fails). The create's one statement writes the lines, moves the counter, then inserts the
     * order: an AFTER row trigger runs at the statement's end, when the order and counter are in.
     */
    const refuseMarkerLinesAfterCounterPassed = async (productId: number, counterBefore: bigint) => {
      const prisma = suite.server.database.prisma;
      await prisma.$executeRawUnsafe(`
        CREATE OR REPLACE FUNCTION test_refuse_marker_line() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.product_id = ${productId} AND (
            SELECT c.last_sequence FROM sales_orders o
            JOIN sales_order_counters c ON c.location_id = o.location_id AND c.financial_year_id = o.financial_year_id
            WHERE o.id = NEW.sales_order_id
          ) > ${counterBefore} THEN
            RAISE EXCEPTION 'marker product refused by the host';
          END IF;
          RETURN NEW;
        END $$`);
      await prisma.$executeRawUnsafe('DROP TRIGGER IF EXISTS test_refuse_marker_line ON sales_order_details');
      await prisma.$executeRawUnsafe(
        'CREATE TRIGGER test_refuse_marker_line AFTER INSERT ON sales_order_details FOR EACH ROW EXECUTE FUNCTION test_refuse_marker_line()',
      );
    };

    it.each([
      { case: 'a server-numbered create', salesOrderNo: undefined },
      { case: 'a create supplying a number of its series ahead of the counter', salesOrderNo: 'CTG-2026-00040' },
    ])('leaves the counter, orders, lines and charges exactly as before: $case', async ({ salesOrderNo }) => {
      const { locations, products } = suite.fixtures;
      const prisma = suite.server.database.prisma;
      const marker = await prisma.product.upsert({
        where: { code: 'MARKER' },
        create: { code: 'MARKER', name: 'Refused by a trigger' },
        update: {},
      });
      await suite.server.http
        .post('/sales-orders')
        .send(orderBody(suite.fixtures, { location_id: locations.chattogram.id }))
        .expect(201);
      const before = await snapshot();
      const counterBefore = before.counters.find(
        (counter) => counter.locationId === locations.chattogram.id,
      )!.lastSequence;
      await refuseMarkerLinesAfterCounterPassed(marker.id, counterBefore);
      try {
        const failed = await suite.server.http.post('/sales-orders').send(
          orderBody(suite.fixtures, {
            location_id: locations.chattogram.id,
            sales_order_no: salesOrderNo,
            details: [
              { product_id: products.otherProduct.id, quantity: 1, rate: 1 },
              { product_id: marker.id, quantity: 1, rate: 1 },
            ],
          }),
        );
        expect(failed.status).toBe(500);
        expect(failed.body).toEqual({
          success: false,
          error: { message: 'Internal server error', code: 500, details: [] },
        });
        expect(await snapshot()).toEqual(before);
      } finally {
        await prisma.$executeRawUnsafe('DROP TRIGGER test_refuse_marker_line ON sales_order_details');
      }
      const next = await suite.server.http
        .post('/sales-orders')
        .send(orderBody(suite.fixtures, { location_id: locations.chattogram.id }))
        .expect(201);
      expect(next.body.data.order_number).toBe(`CTG-2026-${String(counterBefore + 1n).padStart(5, '0')}`);
    });
  });

  it('rolls back the counter a failed insert had already moved', async () => {
    await suite.server.http
      .post('/sales-orders')
      .send(orderBody(suite.fixtures, { sales_order_no: 'DHK-2026-00500' }))
      .expect(201);
    // The stored number now reads 00900 while the counter stays at 500: a create supplying
    // 00900 moves the counter to 900 inside its transaction, then fails on the duplicate.
    await suite.server.database.prisma
      .$executeRaw`UPDATE sales_orders SET sales_order_no = 'DHK-2026-00900' WHERE sales_order_no = 'DHK-2026-00500'`;
    const before = await snapshot();
    expect(before.counters.map((counter) => counter.lastSequence)).toContain(500n);

    const failed = await suite.server.http
      .post('/sales-orders')
      .send(orderBody(suite.fixtures, { sales_order_no: 'DHK-2026-00900' }));
    expect(failed.status).toBe(422);
    expect(failed.body.error.details[0].code).toBe('duplicate_order_number');
    expect(await snapshot()).toEqual(before);
    const next = await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201);
    expect(next.body.data.order_number).toBe('DHK-2026-00501');
  });

  it('rolls back an update whose checks fail after the row was locked', async () => {
    const id = (await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201)).body.data
      .sales_order_id;
    const before = await snapshot();
    const order = (await suite.server.http.get(`/sales-orders/${id}`)).body.data;
    await suite.server.http
      .put(`/sales-orders/${id}`)
      .send({ details: [{ product_id: suite.fixtures.products.product.id, quantity: 1, rate: 1 }], grand_total: 1 })
      .expect(422);
    expect(await snapshot()).toEqual(before);
    expect((await suite.server.http.get(`/sales-orders/${id}`)).body.data).toEqual(order);
  });
});
