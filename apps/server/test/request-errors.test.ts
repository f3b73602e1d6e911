import { DETAIL_CODES } from '@sales-order/contract';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { orderBody } from './support/fixtures.js';
import { startTestServer, type TestServer, useServerWithFixtures } from './support/test-server.js';

interface Detail {
  path: string;
  message: string;
  code: string;
}

/** Asserts the error envelope and returns its details. */
const expectError = (response: request.Response, status: number): Detail[] => {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.body.success).toBe(false);
  expect(response.body.error.code).toBe(status);
  expect(typeof response.body.error.message).toBe('string');
  expect(Array.isArray(response.body.error.details)).toBe(true);
  expect(Object.keys(response.body).sort()).toEqual(['error', 'success']);
  // Every code a caller can meet is one the contract declares (and the OpenAPI document lists).
  for (const detail of response.body.error.details as Detail[]) expect(DETAIL_CODES).toContain(detail.code);
  return response.body.error.details;
};

const pathsOf = (details: Detail[]) => details.map((detail) => detail.path).sort();

describe('400: the request does not fit the contract', () => {
  const suite = useServerWithFixtures({ BODY_LIMIT: '64kb' });

  it('refuses malformed JSON', async () => {
    const response = await suite.server.http
      .post('/sales-orders')
      .set('Content-Type', 'application/json')
      .send('{"customer_id": 1,');
    const details = expectError(response, 400);
    expect(response.body.error.message).toBe('The request body is not valid JSON');
    expect(details).toEqual([{ path: '', message: 'The request body is not valid JSON', code: 'entity.parse.failed' }]);
  });

  it('refuses a body that is not application/json', async () => {
    const response = await suite.server.http
      .post('/sales-orders')
      .set('Content-Type', 'text/plain')
      .send('customer_id=1');
    const details = expectError(response, 400);
    expect(details[0]?.code).toBe('unsupported_media_type');
    const form = await suite.server.http.put('/sales-orders/1').type('form').send({ remarks: 'x' });
    expect(expectError(form, 400)[0]?.code).toBe('unsupported_media_type');
  });

  it('refuses a body over BODY_LIMIT with 413', async () => {
    const body = orderBody(suite.fixtures, { remarks: 'x'.repeat(70_000) });
    const response = await suite.server.http.post('/sales-orders').send(body);
    const details = expectError(response, 413);
    expect(details[0]?.code).toBe('entity.too.large');
    expect(await suite.server.database.prisma.salesOrder.count()).toBe(0);
  });

  it('names every missing required field', async () => {
    const details = expectError(await suite.server.http.post('/sales-orders').send({}), 400);
    expect(pathsOf(details)).toEqual(['customer_id', 'details', 'location_id', 'sales_order_date']);
    expect(details.every((detail) => detail.code === 'required')).toBe(true);
  });

  it('names wrong types and out-of-range values with their paths', async () => {
    const body = orderBody(suite.fixtures, {
      customer_id: '7',
      sales_order_date: '2026-02-30',
      location_id: -1,
      grand_total: 'lots',
      details: [
        { product_id: suite.fixtures.products.product.id, quantity: 0, rate: 1 },
        { product_id: suite.fixtures.products.product.id, quantity: 1.0005, rate: -2 },
        { product_id: 1.5, quantity: 1, rate: 1.00001 },
      ],
      other_charges: [{ description: '   ', amount: 1.234 }],
    });
    const details = expectError(await suite.server.http.post('/sales-orders').send(body), 400);
    expect(pathsOf(details)).toEqual(
      [
        'customer_id',
        'details.0.quantity',
        'details.1.quantity',
        'details.1.rate',
        'details.2.product_id',
        'details.2.rate',
        'grand_total',
        'location_id',
        'other_charges.0.amount',
        'other_charges.0.description',
        'sales_order_date',
      ].sort(),
    );
    const byPath = new Map(details.map((detail) => [detail.path, detail]));
    expect(byPath.get('customer_id')?.code).toBe('invalid_type');
    expect(byPath.get('sales_order_date')?.code).toBe('invalid_date');
    expect(byPath.get('details.1.quantity')?.code).toBe('too_many_decimals');
    expect(byPath.get('details.2.rate')?.code).toBe('too_many_decimals');
    expect(byPath.get('other_charges.0.amount')?.code).toBe('too_many_decimals');
    expect(byPath.get('details.0.quantity')?.code).toBe('too_small');
  });

  it('limits detail lines to 1..500 and other charges to 50', async () => {
    const line = { product_id: suite.fixtures.products.product.id, quantity: 1, rate: 1 };
    const none = expectError(
      await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures, { details: [] })),
      400,
    );
    expect(none).toEqual([expect.objectContaining({ path: 'details', code: 'too_small' })]);
    const tooMany = expectError(
      await suite.server.http
        .post('/sales-orders')
        .send(orderBody(suite.fixtures, { details: Array.from({ length: 501 }, () => line) })),
      400,
    );
    expect(tooMany).toEqual([expect.objectContaining({ path: 'details', code: 'too_big' })]);
    const charges = Array.from({ length: 51 }, () => ({ description: 'Fee', amount: 1 }));
    expect(
      pathsOf(
        expectError(
          await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures, { other_charges: charges })),
          400,
        ),
      ),
    ).toEqual(['other_charges']);
  });

  it('refuses control characters in text and malformed order numbers', async () => {
    const details = expectError(
      await suite.server.http
        .post('/sales-orders')
        .send(orderBody(suite.fixtures, { remarks: 'nul \u0000 byte', sales_order_no: 'DHK 2026 01' })),
      400,
    );
    expect(details).toEqual([
      expect.objectContaining({ path: 'sales_order_no', code: 'invalid_order_number' }),
      expect.objectContaining({ path: 'remarks', code: 'invalid_text' }),
    ]);
  });

  it('refuses a body that is JSON but not an object', async () => {
    const details = expectError(await suite.server.http.post('/sales-orders').send([1, 2]), 400);
    expect(details).toEqual([expect.objectContaining({ path: '', code: 'invalid_type' })]);
  });

  it('refuses an update naming no field', async () => {
    const details = expectError(await suite.server.http.put('/sales-orders/1').send({ unknown_field: 1 }), 400);
    expect(details).toEqual([expect.objectContaining({ path: '', code: 'empty_update' })]);
  });

  it('refuses path ids that are not positive integers', async () => {
    for (const id of ['abc', '0', '-3', '1.5', '2147483648']) {
      const details = expectError(await suite.server.http.get(`/sales-orders/${id}`), 400);
      expect(details).toEqual([expect.objectContaining({ path: 'id' })]);
    }
  });

  it('refuses missing or malformed max-number query parameters', async () => {
    expect(pathsOf(expectError(await suite.server.http.get('/sales-orders/max-number'), 400))).toEqual([
      'location_id',
      'year_id',
    ]);
    expect(
      pathsOf(expectError(await suite.server.http.get('/sales-orders/max-number?year_id=x&location_id=1'), 400)),
    ).toEqual(['year_id']);
    const repeated = await suite.server.http.get('/sales-orders/max-number?year_id=1&year_id=2&location_id=1');
    expect(pathsOf(expectError(repeated, 400))).toEqual(['year_id']);
  });

  it('refuses calculate-totals lines out of range', async () => {
    const details = expectError(
      await suite.server.http
        .post('/sales-orders/calculate-totals')
        .send({ details: [{ quantity: -1, rate: 2 }], other_charges: [{ amount: 'x' }] }),
      400,
    );
    expect(pathsOf(details)).toEqual(['details.0.quantity', 'other_charges.0.amount']);
  });
});

describe('422: well-formed, but the data says no', () => {
  const suite = useServerWithFixtures();

  it('names unknown and inactive references, every one of them', async () => {
    const body = orderBody(suite.fixtures, {
      customer_id: suite.fixtures.customers.inactiveCustomer.id,
      location_id: suite.fixtures.locations.closedDepot.id,
      details: [
        { product_id: 999_999, quantity: 1, rate: 1 },
        { product_id: suite.fixtures.products.inactiveProduct.id, quantity: 1, rate: 1 },
        {
          product_id: suite.fixtures.products.product.id,
          packsize_id: suite.fixtures.packsizes.otherPacksize.id,
          quantity: 1,
          rate: 1,
        },
        {
          product_id: suite.fixtures.products.product.id,
          packsize_id: suite.fixtures.packsizes.inactivePacksize.id,
          quantity: 1,
          rate: 1,
        },
        { product_id: suite.fixtures.products.product.id, packsize_id: 999_999, quantity: 1, rate: 1 },
      ],
    });
    const details = expectError(await suite.server.http.post('/sales-orders').send(body), 422);
    expect(details.map(({ path, code }) => ({ path, code }))).toEqual([
      { path: 'customer_id', code: 'unknown_customer' },
      { path: 'location_id', code: 'unknown_location' },
      { path: 'details.0.product_id', code: 'unknown_product' },
      { path: 'details.1.product_id', code: 'unknown_product' },
      { path: 'details.2.packsize_id', code: 'packsize_not_of_product' },
      { path: 'details.3.packsize_id', code: 'unknown_packsize' },
      { path: 'details.4.packsize_id', code: 'unknown_packsize' },
    ]);
    expect(await suite.server.database.prisma.salesOrder.count()).toBe(0);
  });

  it('refuses a date outside every active financial year', async () => {
    for (const date of ['2030-01-01', '2020-12-01']) {
      const details = expectError(
        await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures, { sales_order_date: date })),
        422,
      );
      expect(details).toEqual([
        expect.objectContaining({ path: 'sales_order_date', code: 'date_outside_financial_years' }),
      ]);
    }
  });

  it('refuses a line amount more than 0.01 away from quantity x rate, and accepts one within', async () => {
    const line = { product_id: suite.fixtures.products.otherProduct.id, quantity: 3, rate: 33.333 };
    const off = expectError(
      await suite.server.http
        .post('/sales-orders')
        .send(orderBody(suite.fixtures, { details: [line, { ...line, amount: 99.98 }], other_charges: [] })),
      422,
    );
    expect(off).toEqual([expect.objectContaining({ path: 'details.1.amount', code: 'amount_mismatch' })]);
    await suite.server.http
      .post('/sales-orders')
      .send(orderBody(suite.fixtures, { details: [{ ...line, amount: 99.999 }], other_charges: [] }))
      .expect(201);
  });

  it('refuses a grand_total that does not add up, and a negative one', async () => {
    const mismatch = expectError(
      await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures, { grand_total: 7905.02 })),
      422,
    );
    expect(mismatch).toEqual([expect.objectContaining({ path: 'grand_total', code: 'grand_total_mismatch' })]);
    await suite.server.http
      .post('/sales-orders')
      .send(orderBody(suite.fixtures, { grand_total: 7905.01 }))
      .expect(201);

    const negative = expectError(
      await suite.server.http
        .post('/sales-orders')
        .send(orderBody(suite.fixtures, { other_charges: [{ description: 'Rebate', amount: -10_000 }] })),
      422,
    );
    expect(negative).toEqual([expect.objectContaining({ path: 'grand_total', code: 'negative_grand_total' })]);
  });

  it('refuses amounts beyond what money columns hold', async () => {
    const huge = { product_id: suite.fixtures.products.otherProduct.id, quantity: 999_999_999, rate: 9_999_999_999 };
    const details = expectError(
      await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures, { details: [huge] })),
      422,
    );
    expect(details.map((detail) => detail.code)).toContain('amount_out_of_range');
    const totals = expectError(
      await suite.server.http.post('/sales-orders/calculate-totals').send({ details: [huge] }),
      422,
    );
    expect(totals[0]?.code).toBe('amount_out_of_range');
  });

  it('refuses a duplicate number in the same series and in any other', async () => {
    await suite.server.http
      .post('/sales-orders')
      .send(orderBody(suite.fixtures, { sales_order_no: 'MANUAL-7' }))
      .expect(201);
    const details = expectError(
      await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures, { sales_order_no: 'MANUAL-7' })),
      422,
    );
    expect(details).toEqual([expect.objectContaining({ path: 'sales_order_no', code: 'duplicate_order_number' })]);
    const elsewhere = await suite.server.http
      .post('/sales-orders')
      .send(
        orderBody(suite.fixtures, { sales_order_no: 'MANUAL-7', location_id: suite.fixtures.locations.chattogram.id }),
      );
    expect(expectError(elsewhere, 422)).toEqual([
      expect.objectContaining({ path: 'sales_order_no', code: 'duplicate_order_number' }),
    ]);
  });

  it('refuses moving an order to another location, financial year or number, and changes nothing', async () => {
    const id = (await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201)).body.data
      .sales_order_id;
    const before = (await suite.server.http.get(`/sales-orders/${id}`)).body.data;

    const details = expectError(
      await suite.server.http.put(`/sales-orders/${id}`).send({
        location_id: suite.fixtures.locations.chattogram.id,
        sales_order_date: '2026-03-10',
        sales_order_no: 'OTHER-1',
        remarks: 'should not stick',
      }),
      422,
    );
    expect(details.map(({ path, code }) => ({ path, code }))).toEqual([
      { path: 'sales_order_no', code: 'order_number_change' },
      { path: 'location_id', code: 'location_change' },
      { path: 'sales_order_date', code: 'financial_year_change' },
    ]);
    const after = (await suite.server.http.get(`/sales-orders/${id}`)).body.data;
    expect(after).toEqual(before);
  });

  it('refuses unknown references on update and keeps the stored lines', async () => {
    const id = (await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201)).body.data
      .sales_order_id;
    const details = expectError(
      await suite.server.http.put(`/sales-orders/${id}`).send({
        customer_id: 999_999,
        details: [
          { product_id: suite.fixtures.products.product.id, quantity: 1, rate: 1 },
          { product_id: 999_999, quantity: 1, rate: 1 },
        ],
      }),
      422,
    );
    expect(pathsOf(details)).toEqual(['customer_id', 'details.1.product_id']);
    const order = (await suite.server.http.get(`/sales-orders/${id}`)).body.data;
    expect(order.details).toHaveLength(2);
    expect(order.version).toBe(1);
  });

  it('answers 422 for max-number of an unknown year or location', async () => {
    const details = expectError(
      await suite.server.http.get('/sales-orders/max-number?year_id=999999&location_id=999999'),
      422,
    );
    expect(details.map(({ path, code }) => ({ path, code }))).toEqual([
      { path: 'year_id', code: 'unknown_financial_year' },
      { path: 'location_id', code: 'unknown_location' },
    ]);
  });
});

describe('404 and unexpected failures', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  it('answers unknown routes and orders with 404 in the envelope', async () => {
    expectError(await server.http.get('/no-such-thing'), 404);
    expectError(await request(server.origin).get('/'), 404);
    expectError(await server.http.patch('/sales-orders/1').send({}), 404);
    const missing = expectError(await server.http.get('/sales-orders/424242'), 404);
    expect(missing).toEqual([]);
  });

  it('answers a crash with a plain 500: no stack, SQL or Prisma text', async () => {
    // Break the database under the running service, as an operator's mistake would.
    await server.database.prisma.$executeRawUnsafe('DROP TABLE sales_orders CASCADE');
    const response = await server.http.get('/sales-orders/1');
    expectError(response, 500);
    expect(response.body.error).toEqual({ code: 500, message: 'Internal server error', details: [] });
    expect(JSON.stringify(response.body)).not.toMatch(/prisma|select|sales_order|stack|at \//i);
    expect(response.headers['x-request-id']).toMatch(/.+/);
  });
});
