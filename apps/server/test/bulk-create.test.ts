import { randomUUID } from 'node:crypto';

import { createOpenApiDocument } from '@sales-order/contract/openapi';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadConfig } from '../src/startup/config.js';
import { createFixtures, type Fixtures, ORDER_DATE, orderBody } from './support/fixtures.js';
import { createLicensedProduct } from './support/licences.js';
import { type QueryCountingServer, startQueryCountingServer } from './support/query-counting-server.js';
import { useServerWithFixtures } from './support/test-server.js';
import { signJwt } from './support/tokens.js';

/**
 * POST /sales-orders/bulk (docs/api.md, "Bulk create") against PostgreSQL through HTTP: both
 * error policies with refused orders first, in the middle and last; idempotency of the request
 * and of each order; permissions, scope, numbering, events, history and licence quota per order;
 * and the limits (BULK_MAX_ORDERS, BULK_ORDERS_PER_MINUTE, the per-client request limit).
 */

type Suite = ReturnType<typeof useServerWithFixtures>;

/** An order of a product that needs no licence, so it can be confirmed without warnings. */
const plainOrder = (fixtures: Fixtures, overrides: Record<string, unknown> = {}) =>
  orderBody(fixtures, {
    details: [{ product_id: fixtures.products.otherProduct.id, quantity: 2, rate: 100 }],
    other_charges: [],
    ...overrides,
  });

/** An order the create refuses: its second line names a product that does not exist. */
const refusedOrder = (fixtures: Fixtures) =>
  plainOrder(fixtures, {
    details: [
      { product_id: fixtures.products.otherProduct.id, quantity: 1, rate: 1 },
      { product_id: 999_999, quantity: 1, rate: 1 },
    ],
  });

const sequenceOf = (number: string) => Number(/-(\d+)$/.exec(number)![1]);

const helpers = (suite: Suite) => {
  const prisma = () => suite.server.database.prisma;
  return {
    orderCount: async () => prisma().salesOrder.count(),
    /** The next number the series of Dhaka in the current year would give. */
    nextNumber: async () =>
      (
        await suite.server.http
          .get('/sales-orders/max-number')
          .query({ year_id: suite.fixtures.years.currentYear.id, location_id: suite.fixtures.locations.dhaka.id })
          .expect(200)
      ).body.data.next_sales_order_number as string,
    bulk: (body: object, headers: Record<string, string> = {}) =>
      suite.server.http.post('/sales-orders/bulk').set(headers).send(body),
  };
};

describe('bulk create: error policies', () => {
  const suite = useServerWithFixtures();
  const { orderCount, nextNumber, bulk } = helpers(suite);

  it('creates every order in one call, numbered consecutively in input order (201)', async () => {
    const first = sequenceOf(await nextNumber());
    const orders = [0, 1, 2, 3].map((n) => plainOrder(suite.fixtures, { remarks: `bulk ${n}` }));
    const response = await bulk({ orders });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const data = response.body.data;
    expect(data).toMatchObject({ error_policy: 'reject_everything', created: 4, failed: 0 });
    expect(data.results.map((result: { index: number; status: string }) => [result.index, result.status])).toEqual([
      [0, 'created'],
      [1, 'created'],
      [2, 'created'],
      [3, 'created'],
    ]);
    expect(
      data.results.map((result: { order: { order_number: string } }) => sequenceOf(result.order.order_number)),
    ).toEqual([first, first + 1, first + 2, first + 3]);
    for (const [n, result] of (
      data.results as { order: { sales_order_id: number; total_amount: number } }[]
    ).entries()) {
      expect(result.order.total_amount).toBe(200);
      const read = await suite.server.http.get(`/sales-orders/${result.order.sales_order_id}`).expect(200);
      expect(read.body.data).toMatchObject({ remarks: `bulk ${n}`, status: 'draft', grand_total: 200 });
    }
  });

  it.each([
    ['first', 0],
    ['in the middle', 2],
    ['last', 4],
  ])('reject_everything: an order refused %s creates none and answers 422 naming it', async (_where, bad) => {
    const before = await orderCount();
    const next = await nextNumber();
    const orders = [0, 1, 2, 3, 4].map((n) =>
      n === bad ? refusedOrder(suite.fixtures) : plainOrder(suite.fixtures, { remarks: `all or none ${n}` }),
    );
    const response = await bulk({ orders, error_policy: 'reject_everything' });
    expect(response.status, JSON.stringify(response.body)).toBe(422);
    expect(response.body.error.message).toBe('Validation failed: 1 of 5 orders refused, none created');
    expect(response.body.error.details).toEqual([
      expect.objectContaining({ path: `orders.${bad}.details.1.product_id`, code: 'unknown_product', index: bad }),
    ]);
    expect(await orderCount()).toBe(before);
    // Nothing consumed a number either.
    expect(await nextNumber()).toBe(next);
  });

  it('reject_everything: names every refused order, each with its own details', async () => {
    const orders = [
      refusedOrder(suite.fixtures),
      plainOrder(suite.fixtures),
      plainOrder(suite.fixtures, { customer_id: 999_999 }),
      refusedOrder(suite.fixtures),
    ];
    const response = await bulk({ orders });
    expect(response.status).toBe(422);
    expect(
      response.body.error.details.map((detail: { path: string; index: number }) => [detail.index, detail.path]),
    ).toEqual([
      [0, 'orders.0.details.1.product_id'],
      [2, 'orders.2.customer_id'],
      [3, 'orders.3.details.1.product_id'],
    ]);
  });

  it.each([
    ['first', [0]],
    ['in the middle', [2]],
    ['last', [4]],
    ['first, in the middle and last', [0, 2, 4]],
  ])(
    'reject_failed_rows: orders refused %s fail alone; the others are created, numbered consecutively (200)',
    async (_where, bad) => {
      const before = await orderCount();
      const first = sequenceOf(await nextNumber());
      const orders = [0, 1, 2, 3, 4].map((n) =>
        bad.includes(n) ? refusedOrder(suite.fixtures) : plainOrder(suite.fixtures, { remarks: `rows ${n}` }),
      );
      const response = await bulk({ orders, error_policy: 'reject_failed_rows' });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      const data = response.body.data;
      expect(data).toMatchObject({ error_policy: 'reject_failed_rows', created: 5 - bad.length, failed: bad.length });
      expect(data.results.map((result: { index: number }) => result.index)).toEqual([0, 1, 2, 3, 4]);
      let expected = first;
      for (const [index, result] of (
        data.results as { status: string; error?: unknown; order: { order_number: string } }[]
      ).entries()) {
        if (bad.includes(index)) {
          expect(result).toEqual({
            index,
            status: 'failed',
            error: {
              code: 422,
              message: 'Validation failed',
              details: [expect.objectContaining({ path: `orders.${index}.details.1.product_id`, index })],
            },
          });
        } else {
          expect(result.status).toBe('created');
          expect(result.error).toBeUndefined();
          expect(sequenceOf(result.order.order_number)).toBe(expected);
          expected += 1;
        }
      }
      expect(await orderCount()).toBe(before + 5 - bad.length);
    },
  );

  it('a number supplied twice in one batch is the second order’s error', async () => {
    const number = `HOST-${randomUUID().slice(0, 8)}`;
    const response = await bulk({
      orders: [
        plainOrder(suite.fixtures, { sales_order_no: number }),
        plainOrder(suite.fixtures),
        plainOrder(suite.fixtures, { sales_order_no: number.toLowerCase() }),
      ],
      error_policy: 'reject_failed_rows',
    });
    expect(response.status).toBe(200);
    const [first, second, third] = response.body.data.results;
    expect(first.order.order_number).toBe(number);
    expect(second.status).toBe('created');
    expect(third).toMatchObject({
      status: 'failed',
      error: {
        code: 422,
        details: [expect.objectContaining({ path: 'orders.2.sales_order_no', code: 'duplicate_order_number' })],
      },
    });
  });

  it('a supplied series number follows the create rules: the counter moves past it, the next orders follow', async () => {
    const next = sequenceOf(await nextNumber());
    const supplied = `DHK-2026-${String(next + 5).padStart(5, '0')}`;
    const response = await bulk({
      orders: [
        plainOrder(suite.fixtures),
        plainOrder(suite.fixtures, { sales_order_no: supplied }),
        plainOrder(suite.fixtures),
      ],
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(
      response.body.data.results.map((result: { order: { order_number: string } }) =>
        sequenceOf(result.order.order_number),
      ),
    ).toEqual([next, next + 5, next + 6]);
  });

  it('reject_failed_rows: a supplied number too far ahead fails alone, and no number is lost to it', async () => {
    const next = sequenceOf(await nextNumber());
    const response = await bulk({
      orders: [
        plainOrder(suite.fixtures),
        plainOrder(suite.fixtures, { sales_order_no: `DHK-2026-${next + 5_000_000}` }),
        plainOrder(suite.fixtures),
        plainOrder(suite.fixtures, { sales_order_no: `DHK-2026-${next + 10}` }),
        plainOrder(suite.fixtures),
      ],
      error_policy: 'reject_failed_rows',
    }).expect(200);
    const results = response.body.data.results as {
      status: string;
      order?: { order_number: string };
      error?: { details: unknown[] };
    }[];
    expect(results.map((result) => result.status)).toEqual(['created', 'failed', 'created', 'created', 'created']);
    expect(results[1]!.error?.details).toEqual([
      expect.objectContaining({ path: 'orders.1.sales_order_no', code: 'order_number_too_far_ahead', index: 1 }),
    ]);
    expect(results.flatMap((result) => (result.order ? [sequenceOf(result.order.order_number)] : []))).toEqual([
      next,
      next + 1,
      next + 10,
      next + 11,
    ]);
  });

  it('events and history are as if each order had been created alone: one created event per order, in input order', async () => {
    const response = await bulk({ orders: [0, 1, 2].map(() => plainOrder(suite.fixtures)) }).expect(201);
    const ids = response.body.data.results.map(
      (result: { order: { sales_order_id: number } }) => result.order.sales_order_id,
    );
    const events = await suite.server.database.prisma.$queryRaw<{ type: string; sales_order_id: number }[]>`
      SELECT type, subject_id AS sales_order_id FROM events
      WHERE subject_type = 'sales_order' AND subject_id = ANY(${ids}::int[]) ORDER BY seq`;
    expect(events).toEqual(ids.map((id: number) => ({ type: 'sales_order.created', sales_order_id: id })));
    for (const id of ids) {
      const history = await suite.server.http.get(`/sales-orders/${id}/history`).expect(200);
      expect(
        history.body.data.entries.map((entry: { action: string; version: number }) => [entry.action, entry.version]),
      ).toEqual([['create', 1]]);
    }
  });

  it('takes the default policy reject_everything and refuses a body that is not a list of create bodies (400)', async () => {
    await bulk({ orders: [] }).expect(400);
    await bulk({ orders: [{ customer_id: 'x' }] }).expect(400);
    await bulk({ orders: [plainOrder(suite.fixtures)], error_policy: 'best_effort' }).expect(400);
    const shape = await bulk({ orders: [{ ...plainOrder(suite.fixtures), details: [] }] }).expect(400);
    expect(shape.body.error.details[0].path).toBe('orders.0.details');
  });
});

describe('bulk create: idempotency', () => {
  const suite = useServerWithFixtures();
  const { orderCount, bulk } = helpers(suite);

  it('a retried partly failed batch gets its earlier orders back and makes no duplicates', async () => {
    const run = randomUUID();
    const good = [0, 1, 2, 3].map((n) => ({
      ...plainOrder(suite.fixtures, { remarks: `retry ${n}` }),
      idempotency_key: `${run}-${n}`,
    }));
    const firstTry = [good[0], { ...refusedOrder(suite.fixtures), idempotency_key: `${run}-1` }, good[2], good[3]];
    const before = await orderCount();
    const first = await bulk({ orders: firstTry, error_policy: 'reject_failed_rows' }).expect(200);
    expect(first.body.data).toMatchObject({ created: 3, failed: 1 });
    expect(await orderCount()).toBe(before + 3);

    // The client fixes the refused order and sends the whole batch again, with the same keys.
    const second = await bulk({ orders: good, error_policy: 'reject_failed_rows' }).expect(200);
    expect(second.body.data).toMatchObject({ created: 4, failed: 0 });
    const [a, b, c, d] = second.body.data.results;
    expect(a.order).toEqual(first.body.data.results[0].order);
    expect(c.order).toEqual(first.body.data.results[2].order);
    expect(d.order).toEqual(first.body.data.results[3].order);
    expect(b.order.sales_order_id).toBeGreaterThan(d.order.sales_order_id);
    expect(await orderCount()).toBe(before + 4);

    // And once more: nothing new.
    const third = await bulk({ orders: good, error_policy: 'reject_everything' }).expect(201);
    expect(third.body.data.results.map((result: { order: unknown }) => result.order)).toEqual(
      second.body.data.results.map((result: { order: unknown }) => result.order),
    );
    expect(await orderCount()).toBe(before + 4);
  });

  it('an order key shares the single create’s key space: a key used there answers its order', async () => {
    const key = randomUUID();
    const body = plainOrder(suite.fixtures, { remarks: 'single first' });
    const single = await suite.server.http.post('/sales-orders').set('Idempotency-Key', key).send(body).expect(201);
    const before = await orderCount();
    const response = await bulk({ orders: [{ ...body, idempotency_key: key }, plainOrder(suite.fixtures)] }).expect(
      201,
    );
    expect(response.body.data.results[0].order).toEqual(single.body.data);
    expect(await orderCount()).toBe(before + 1);

    // The other way round: a key first used in a bulk answers the single create's retry.
    const bulkKey = randomUUID();
    const made = await bulk({ orders: [{ ...body, idempotency_key: bulkKey }] }).expect(201);
    const retry = await suite.server.http.post('/sales-orders').set('Idempotency-Key', bulkKey).send(body).expect(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.data).toEqual(made.body.data.results[0].order);
  });

  it('an order key reused with another body fails that order with idempotency_key_reused', async () => {
    const key = randomUUID();
    await bulk({ orders: [{ ...plainOrder(suite.fixtures, { remarks: 'one' }), idempotency_key: key }] }).expect(201);
    const response = await bulk({
      orders: [
        plainOrder(suite.fixtures),
        { ...plainOrder(suite.fixtures, { remarks: 'another' }), idempotency_key: key },
      ],
      error_policy: 'reject_failed_rows',
    }).expect(200);
    expect(response.body.data.results[1]).toMatchObject({
      status: 'failed',
      error: { code: 422, details: [expect.objectContaining({ code: 'idempotency_key_reused', index: 1 })] },
    });
    expect(response.body.data.results[0].status).toBe('created');
  });

  it('the same key twice in one batch: the second order is the first one again (same body) or refused (another)', async () => {
    const key = randomUUID();
    const body = { ...plainOrder(suite.fixtures, { remarks: 'twice' }), idempotency_key: key };
    const before = await orderCount();
    const same = await bulk({ orders: [body, body] }).expect(201);
    expect(same.body.data.results[1].order).toEqual(same.body.data.results[0].order);
    expect(await orderCount()).toBe(before + 1);
    const other = randomUUID();
    const differs = await bulk({
      orders: [
        { ...body, idempotency_key: other },
        { ...body, remarks: 'not the same', idempotency_key: other },
      ],
    });
    expect(differs.status).toBe(422);
    expect(differs.body.error.details).toEqual([expect.objectContaining({ index: 1, code: 'idempotency_key_reused' })]);
  });

  it('the request’s Idempotency-Key replays the whole answer, whatever became of the orders since', async () => {
    const key = randomUUID();
    const body = {
      orders: [plainOrder(suite.fixtures), refusedOrder(suite.fixtures), plainOrder(suite.fixtures)],
      error_policy: 'reject_failed_rows',
    };
    const first = await bulk(body, { 'Idempotency-Key': key }).expect(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const before = await orderCount();
    const again = await bulk(body, { 'Idempotency-Key': key }).expect(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await orderCount()).toBe(before);
    // Another body with the key: refused.
    const reused = await bulk({ ...body, error_policy: 'reject_everything' }, { 'Idempotency-Key': key }).expect(422);
    expect(reused.body.error.details[0].code).toBe('idempotency_key_reused');
    // A key of a single create cannot stand for a bulk create.
    const singleKey = randomUUID();
    await suite.server.http
      .post('/sales-orders')
      .set('Idempotency-Key', singleKey)
      .send(plainOrder(suite.fixtures))
      .expect(201);
    await bulk({ orders: [plainOrder(suite.fixtures)] }, { 'Idempotency-Key': singleKey }).expect(422);
  });

  it('a refused reject_everything batch stores nothing under its key: the corrected retry creates', async () => {
    const key = randomUUID();
    const orders = [plainOrder(suite.fixtures), refusedOrder(suite.fixtures)];
    await bulk({ orders }, { 'Idempotency-Key': key }).expect(422);
    await bulk({ orders }, { 'Idempotency-Key': key }).expect(422);
    const before = await orderCount();
    await bulk({ orders: [orders[0]] }, { 'Idempotency-Key': randomUUID() }).expect(201);
    expect(await orderCount()).toBe(before + 1);
  });
});

describe('bulk create: permissions, scope and quota per order', () => {
  const suite = useServerWithFixtures();
  const { orderCount, bulk } = helpers(suite);
  const as = async (permissions: string[], extra: Record<string, unknown> = {}) =>
    `Bearer ${await signJwt({ payload: { permissions, ...extra }, subject: 'bulk-clerk' })}`;

  it('needs sales_orders.create, and sales_orders.confirm when any order is created confirmed (403 otherwise)', async () => {
    const clerk = await as(['sales_orders.create']);
    const send = (body: object, authorization: string) =>
      request(suite.server.api).post('/sales-orders/bulk').set('Authorization', authorization).send(body);
    await send({ orders: [plainOrder(suite.fixtures)] }, await as(['sales_orders.read'])).expect(403);
    await send({ orders: [plainOrder(suite.fixtures), plainOrder(suite.fixtures, { status: 'draft' })] }, clerk).expect(
      201,
    );

    const before = await orderCount();
    const refused = await send(
      {
        orders: [plainOrder(suite.fixtures), plainOrder(suite.fixtures, { status: 'confirmed' })],
        error_policy: 'reject_failed_rows',
      },
      clerk,
    ).expect(403);
    expect(refused.body.error.details[0]).toMatchObject({ code: 'missing_permission' });
    expect(refused.body.error.message).toContain('sales_orders.confirm');
    expect(await orderCount()).toBe(before);

    const confirmer = await as(['sales_orders.create', 'sales_orders.confirm']);
    const confirmed = await send({ orders: [plainOrder(suite.fixtures, { status: 'confirmed' })] }, confirmer).expect(
      201,
    );
    const id = confirmed.body.data.results[0].order.sales_order_id;
    expect((await suite.server.http.get(`/sales-orders/${id}`).expect(200)).body.data.status).toBe('confirmed');

    // Acknowledging licence warnings in any order needs licences.override.
    const acknowledging = await send(
      { orders: [plainOrder(suite.fixtures, { status: 'confirmed', acknowledge_warnings: true })] },
      confirmer,
    ).expect(403);
    expect(acknowledging.body.error.message).toContain('licences.override');
  });

  it('applies the caller’s location scope to each order: one outside it fails with location_not_permitted', async () => {
    const { dhaka, chattogram } = suite.fixtures.locations;
    const scoped = await as(['*'], { locations: [dhaka.code] });
    const response = await request(suite.server.api)
      .post('/sales-orders/bulk')
      .set('Authorization', scoped)
      .send({
        orders: [
          plainOrder(suite.fixtures),
          plainOrder(suite.fixtures, { location_id: chattogram.id }),
          plainOrder(suite.fixtures),
        ],
        error_policy: 'reject_failed_rows',
      })
      .expect(200);
    expect(response.body.data.results.map((result: { status: string }) => result.status)).toEqual([
      'created',
      'failed',
      'created',
    ]);
    expect(response.body.data.results[1].error.details).toEqual([
      expect.objectContaining({ path: 'orders.1.location_id', code: 'location_not_permitted', index: 1 }),
    ]);
  });

  it('counts licence quota across the orders of one batch, as if each were created alone', async () => {
    const product = await createLicensedProduct(suite.server.database.prisma, {
      // Valid today and on the order date, far from expiring (no other warning than the quota's).
      licences: [{ validFrom: '2026-07-01', validTo: '2027-06-30', quantity: '100' }],
    });
    const confirmedOf = (quantity: number) =>
      plainOrder(suite.fixtures, {
        sales_order_date: ORDER_DATE,
        status: 'confirmed',
        details: [{ product_id: product.id, quantity, rate: 1 }],
      });
    const response = await bulk({
      orders: [confirmedOf(60), confirmedOf(30), confirmedOf(20), confirmedOf(10)],
      error_policy: 'reject_failed_rows',
    }).expect(200);
    // 60 + 30 fit the 100; 20 more would not; 10 still fits.
    expect(response.body.data.results.map((result: { status: string }) => result.status)).toEqual([
      'created',
      'created',
      'failed',
      'created',
    ]);
    expect(response.body.data.results[2].error.details).toEqual([
      expect.objectContaining({ code: 'quantity_exceeds_licence', index: 2 }),
    ]);
    // The refused order took no number: the others are consecutive.
    const numbers = response.body.data.results.flatMap((result: { order?: { order_number: string } }) =>
      result.order ? [sequenceOf(result.order.order_number)] : [],
    );
    expect(numbers).toEqual([numbers[0], numbers[0] + 1, numbers[0] + 2]);
    // And the quota holds what the created orders hold.
    const held = await suite.server.database.prisma.$queryRaw<{ held: string }[]>`
      SELECT sum(d.quantity)::text AS held FROM sales_order_details d JOIN sales_orders o ON o.id = d.sales_order_id
      WHERE d.product_id = ${product.id} AND o.status = 'confirmed'`;
    expect(Number(held[0]!.held)).toBe(100);
  });
});

describe('bulk create: limits', () => {
  const suite = useServerWithFixtures({
    BULK_MAX_ORDERS: '3',
    BULK_ORDERS_PER_MINUTE: '5',
    RATE_LIMIT_PER_MINUTE: '7',
  });
  const { bulk } = helpers(suite);

  it('refuses more than BULK_MAX_ORDERS with 400, and states the setting as maxItems in the served document', async () => {
    const response = await bulk({ orders: [0, 1, 2, 3].map(() => plainOrder(suite.fixtures)) });
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual([expect.objectContaining({ path: 'orders', code: 'too_big' })]);
    const document = await request(suite.server.api).get('/openapi.json').expect(200);
    expect(document.body.components.schemas.BulkCreateSalesOrdersBody.properties.orders.maxItems).toBe(3);
    expect(createOpenApiDocument().components!.schemas!.BulkCreateSalesOrdersBody).toMatchObject({
      properties: { orders: { maxItems: 100 } },
    });
  });

  it('counts orders against BULK_ORDERS_PER_MINUTE (429, counting none of a refused call) and a call as one request', async () => {
    // The 400 and the document above were requests 1 and 2 of RATE_LIMIT_PER_MINUTE=7 (and counted no orders).
    await bulk({ orders: [0, 1, 2].map(() => plainOrder(suite.fixtures)) }).expect(201); // request 3, 3 orders
    const refused = await bulk({ orders: [0, 1, 2].map(() => plainOrder(suite.fixtures)) }); // request 4, 6 > 5
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.body.error.details).toEqual([expect.objectContaining({ code: 'rate_limited' })]);
    // The refused call's 3 orders were not counted: 2 more still fit.
    await bulk({ orders: [0, 1].map(() => plainOrder(suite.fixtures)) }).expect(201); // request 5, 5 orders
    await bulk({ orders: [plainOrder(suite.fixtures)] }).expect(429); // request 6
    // Each call was one request of the per-client limit: the 7th passes it, the 8th does not.
    await suite.server.http.get('/sales-orders/dropdown-options/customers').expect(200);
    const limited = await suite.server.http.get('/sales-orders/dropdown-options/customers');
    expect(limited.status).toBe(429);
    expect(limited.body.error.message).toContain('per minute from one address');
  });
});

describe('bulk create: statements', () => {
  let server: QueryCountingServer;
  let fixtures: Fixtures;

  beforeAll(async () => {
    server = await startQueryCountingServer();
    fixtures = await createFixtures(server.database.prisma);
  });
  afterAll(() => server?.close());

  const fiveLines = (fixtures: Fixtures) =>
    [1, 2, 3, 4, 5].map((n) => ({ product_id: fixtures.products.otherProduct.id, quantity: n, rate: 10 }));

  it.each([
    { case: 'server numbers', extra: () => ({}) },
    { case: 'free-form numbers', extra: (n: number) => ({ sales_order_no: `PO-${randomUUID()}-${n}` }) },
    {
      case: 'series numbers among others',
      extra: (n: number) => ((n % 1000) % 3 === 0 ? { sales_order_no: `DHK-2026-${n}` } : {}),
    },
    { case: 'reject_failed_rows', extra: () => ({}), policy: 'reject_failed_rows' },
  ])('a batch of 2, 20 or 100 orders costs the same statements ($case)', async ({ extra, policy }) => {
    const counted: string[][] = [];
    let batch = 0;
    for (const size of [2, 20, 100]) {
      batch += 1;
      const orders = Array.from({ length: size }, (_, n) =>
        plainOrder(fixtures, { details: fiveLines(fixtures), ...extra(batch * 1000 + n) }),
      );
      counted.push(
        await server.queriesDuring(() =>
          server.http
            .post('/sales-orders/bulk')
            .send({ orders, ...(policy ? { error_policy: policy } : {}) })
            .expect(policy ? 200 : 201),
        ),
      );
    }
    const [two, twenty, hundred] = counted as [string[], string[], string[]];
    expect(twenty).toEqual(two);
    expect(hundred).toEqual(two);
    // One statement per table whatever the number of orders.
    for (const table of [
      'sales_orders',
      'sales_order_details',
      'sales_order_other_charges',
      'sales_order_history',
      'events',
    ])
      expect(
        hundred.filter((sql) => new RegExp(`INSERT INTO \\S*${table}\\b`).test(sql)),
        table,
      ).toHaveLength(1);
    expect(hundred.filter((sql) => /FROM \S*products/.test(sql))).toHaveLength(1);
  });

  it('with every order keyed, a batch of 2 or 50 costs the same statements', async () => {
    const counts: number[] = [];
    for (const size of [2, 50]) {
      const orders = Array.from({ length: size }, () => ({ ...plainOrder(fixtures), idempotency_key: randomUUID() }));
      counts.push(
        (await server.queriesDuring(() => server.http.post('/sales-orders/bulk').send({ orders }).expect(201))).length,
      );
    }
    expect(counts[1]).toBe(counts[0]);
  });
});

describe('bulk create: configuration', () => {
  it('validates BULK_MAX_ORDERS and BULK_ORDERS_PER_MINUTE at start-up', () => {
    expect(loadConfig({}).bulk).toEqual({ maxOrders: 100, ordersPerMinute: 6000 });
    expect(loadConfig({ BULK_MAX_ORDERS: '1000', BULK_ORDERS_PER_MINUTE: '1' }).bulk).toEqual({
      maxOrders: 1000,
      ordersPerMinute: 1,
    });
    for (const env of [
      { BULK_MAX_ORDERS: '0' },
      { BULK_MAX_ORDERS: '1001' },
      { BULK_MAX_ORDERS: '1e2' },
      { BULK_ORDERS_PER_MINUTE: '0' },
      { BULK_ORDERS_PER_MINUTE: ' 10' },
    ])
      expect(() => loadConfig(env), JSON.stringify(env)).toThrow(Object.keys(env)[0]);
  });
});
