import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { addDays, formatCalendarDate, parseCalendarDate } from '../src/shared/calendar.js';
import { createFixtures, ORDER_DATE, orderBody, PREVIOUS_YEAR_DATE } from './support/fixtures.js';
import { createLicensedProduct, type LicenceInput } from './support/licences.js';
import { type QueryCountingServer, startQueryCountingServer } from './support/query-counting-server.js';
import { useServerWithFixtures } from './support/test-server.js';

/** A date `days` after the order date all these tests check on (2026-11-15). */
const daysAfter = (days: number) => formatCalendarDate(addDays(parseCalendarDate(ORDER_DATE), days));

/** Valid for a year around the order date. */
const wide = (quantity: string | null): LicenceInput => ({ validFrom: '2026-07-01', validTo: '2027-06-30', quantity });

type Product = Awaited<ReturnType<typeof createLicensedProduct>>;
const label = (product: Product) => `Product ${product.id} "${product.name}"`;
const noLicence = (product: Product, date = ORDER_DATE) => ({
  product_id: product.id,
  code: 'no_valid_licence',
  message: `${label(product)} requires a licence, but none is valid on ${date}.`,
});
const expiring = (product: Product, licenceNo: string, validTo: string, days: number) => ({
  product_id: product.id,
  code: 'licence_expiring',
  message: `${label(product)}: licence ${licenceNo} expires on ${validTo}, ${days} day${days === 1 ? '' : 's'} after the order date (${ORDER_DATE}).`,
});
const overQuota = (
  product: Product,
  licenceNo: string,
  quantity: string,
  left: string,
  licensed: string,
  used: string,
) => ({
  product_id: product.id,
  code: 'quantity_exceeds_licence',
  message: `${label(product)}: quantity ${quantity} exceeds the ${left} left on licence ${licenceNo} (${licensed} licensed, ${used} on orders).`,
});

describe('POST /sales-orders/validate-licence', () => {
  const suite = useServerWithFixtures();

  const product = (options?: Parameters<typeof createLicensedProduct>[1]) =>
    createLicensedProduct(suite.server.database.prisma, options);

  const validate = (lines: { product_id: number; quantity: number }[], extra: Record<string, unknown> = {}) =>
    suite.server.http
      .post('/sales-orders/validate-licence')
      .send({ sales_order_details: lines, sales_order_date: ORDER_DATE, ...extra });

  /** The warnings of a 200 answer, after checking the rest of the body agrees with them. */
  const warningsOf = async (request: ReturnType<typeof validate>) => {
    const response = await request;
    expect(response.status).toBe(200);
    const { warnings, validation_message, has_warnings } = response.body.data;
    expect(validation_message).toBe(warnings.map((warning: { message: string }) => warning.message).join('\n'));
    expect(has_warnings).toBe(warnings.length > 0);
    return warnings;
  };

  /**
   * Creates a confirmed order through the API, as a user would (only confirmed and closed
   * orders hold quota); returns its id.
   */
  const placeOrder = async (lines: { product_id: number; quantity: number }[], date = ORDER_DATE): Promise<number> => {
    const response = await suite.server.http.post('/sales-orders').send(
      orderBody(suite.fixtures, {
        sales_order_date: date,
        details: lines.map((line) => ({ ...line, rate: 10 })),
        other_charges: [],
        status: 'confirmed',
        acknowledge_warnings: true,
      }),
    );
    expect(response.status).toBe(201);
    return response.body.data.sales_order_id;
  };

  it('no warnings: exactly an empty message, has_warnings false and no warnings', async () => {
    const unlimited = await product({ licences: [wide(null)] });
    const limited = await product({ licences: [wide('500')] });

    const response = await validate([
      { product_id: unlimited.id, quantity: 10 },
      { product_id: limited.id, quantity: 500 },
      { product_id: suite.fixtures.products.otherProduct.id, quantity: 1000 },
    ]);

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      data: { validation_message: '', has_warnings: false, warnings: [] },
    });
  });

  it('no_valid_licence: none issued, expired the day before, starting the day after, or inactive', async () => {
    const none = await product();
    const expired = await product({ licences: [{ validFrom: '2025-11-15', validTo: daysAfter(-1), quantity: null }] });
    const future = await product({ licences: [{ validFrom: daysAfter(1), validTo: '2027-11-15', quantity: null }] });
    const inactive = await product({ licences: [{ ...wide(null), active: false }] });

    const response = await validate([none, expired, future, inactive].map((p) => ({ product_id: p.id, quantity: 1 })));

    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({
      validation_message: [none, expired, future, inactive].map((p) => noLicence(p).message).join('\n'),
      has_warnings: true,
      warnings: [none, expired, future, inactive].map((p) => noLicence(p)),
    });
  });

  it('a product that needs no licence never warns, whatever its licences say', async () => {
    const free = await product({
      requiresLicence: false,
      licences: [{ validFrom: '2020-01-01', validTo: '2020-12-31', quantity: '1' }],
    });

    expect(await warningsOf(validate([{ product_id: free.id, quantity: 999 }]))).toEqual([]);
  });

  it('licence_expiring: up to 30 days ahead, counted in calendar days, the last valid day included', async () => {
    const lastDay = await product({ licences: [{ validFrom: '2026-01-01', validTo: ORDER_DATE, quantity: null }] });
    const tomorrow = await product({ licences: [{ validFrom: '2026-01-01', validTo: daysAfter(1), quantity: null }] });
    const in30 = await product({ licences: [{ validFrom: '2026-01-01', validTo: daysAfter(30), quantity: null }] });
    const in31 = await product({ licences: [{ validFrom: '2026-01-01', validTo: daysAfter(31), quantity: null }] });

    const warnings = await warningsOf(
      validate([lastDay, tomorrow, in30, in31].map((p) => ({ product_id: p.id, quantity: 1 }))),
    );

    expect(warnings).toEqual([
      expiring(lastDay, `LIC-${lastDay.code}-1`, ORDER_DATE, 0),
      expiring(tomorrow, `LIC-${tomorrow.code}-1`, daysAfter(1), 1),
      expiring(in30, `LIC-${in30.code}-1`, daysAfter(30), 30),
    ]);
  });

  it('a renewal on file that continues the cover silences the expiry warning; one leaving a gap does not', async () => {
    const renewed = await product({
      licences: [
        { validFrom: '2025-11-26', validTo: daysAfter(10), quantity: null },
        { validFrom: daysAfter(11), validTo: daysAfter(400), quantity: null },
      ],
    });
    const gap = await product({
      licences: [
        { validFrom: '2025-11-26', validTo: daysAfter(10), quantity: null },
        { validFrom: daysAfter(12), validTo: daysAfter(400), quantity: null },
      ],
    });

    const warnings = await warningsOf(validate([renewed, gap].map((p) => ({ product_id: p.id, quantity: 1 }))));

    expect(warnings).toEqual([expiring(gap, `LIC-${gap.code}-1`, daysAfter(10), 10)]);
  });

  it('quantity_exceeds_licence: the quota less what other live orders in the window hold', async () => {
    const quota = await product({ licences: [wide('150')] });
    await placeOrder([{ product_id: quota.id, quantity: 60 }]);
    await placeOrder([{ product_id: quota.id, quantity: 40 }], '2027-06-30');

    expect(await warningsOf(validate([{ product_id: quota.id, quantity: 50 }]))).toEqual([]);
    expect(await warningsOf(validate([{ product_id: quota.id, quantity: 50.001 }]))).toEqual([
      overQuota(quota, `LIC-${quota.code}-1`, '50.001', '50', '150', '100'),
    ]);
  });

  it('orders dated outside the licence window do not use its quota', async () => {
    const quota = await product({ licences: [{ validFrom: '2026-07-01', validTo: '2026-12-31', quantity: '100' }] });
    await placeOrder([{ product_id: quota.id, quantity: 90 }], PREVIOUS_YEAR_DATE);
    await placeOrder([{ product_id: quota.id, quantity: 90 }], '2027-01-01');
    await placeOrder([{ product_id: quota.id, quantity: 1 }], '2026-07-01');

    expect(await warningsOf(validate([{ product_id: quota.id, quantity: 99 }]))).toEqual([]);
    expect(await warningsOf(validate([{ product_id: quota.id, quantity: 100 }]))).toEqual([
      overQuota(quota, `LIC-${quota.code}-1`, '100', '99', '100', '1'),
    ]);
  });

  it('adds up the lines of one product before the quota check, and warns once per product', async () => {
    const quota = await product({ licences: [wide('50')] });
    const unlicensed = await product();

    expect(
      await warningsOf(
        validate([
          { product_id: quota.id, quantity: 30 },
          { product_id: quota.id, quantity: 20 },
        ]),
      ),
    ).toEqual([]);
    expect(
      await warningsOf(
        validate([
          { product_id: quota.id, quantity: 30 },
          { product_id: unlicensed.id, quantity: 1 },
          { product_id: quota.id, quantity: 20.5 },
          { product_id: unlicensed.id, quantity: 1 },
        ]),
      ),
    ).toEqual([overQuota(quota, `LIC-${quota.code}-1`, '50.5', '50', '50', '0'), noLicence(unlicensed)]);
  });

  it('cancelled, draft and soft-deleted orders do not use the quota', async () => {
    const quota = await product({ licences: [wide('100')] });
    const cancelled = await placeOrder([{ product_id: quota.id, quantity: 80 }]);
    expect(await warningsOf(validate([{ product_id: quota.id, quantity: 30 }]))).toHaveLength(1);

    expect(
      (await suite.server.http.post(`/sales-orders/${cancelled}/cancel`).send({ reason: 'not needed' })).status,
    ).toBe(200);
    expect(await warningsOf(validate([{ product_id: quota.id, quantity: 100 }]))).toEqual([]);

    // A draft holds nothing, and neither does it once deleted.
    const draft = await suite.server.http
      .post('/sales-orders')
      .send(
        orderBody(suite.fixtures, { details: [{ product_id: quota.id, quantity: 80, rate: 10 }], other_charges: [] }),
      )
      .expect(201);
    expect(await warningsOf(validate([{ product_id: quota.id, quantity: 100 }]))).toEqual([]);
    expect((await suite.server.http.delete(`/sales-orders/${draft.body.data.sales_order_id}`)).status).toBe(200);
    expect(await warningsOf(validate([{ product_id: quota.id, quantity: 100 }]))).toEqual([]);
  });

  it("sales_order_id leaves out only the edited order's own stored lines", async () => {
    const quota = await product({ licences: [wide('150')] });
    const edited = await placeOrder([
      { product_id: quota.id, quantity: 100 },
      { product_id: quota.id, quantity: 5 },
    ]);
    await placeOrder([{ product_id: quota.id, quantity: 40 }]);

    // Without it, the edited order's 105 count too: 150 - 145 = 5 left.
    expect(await warningsOf(validate([{ product_id: quota.id, quantity: 110 }]))).toEqual([
      overQuota(quota, `LIC-${quota.code}-1`, '110', '5', '150', '145'),
    ]);
    expect(await warningsOf(validate([{ product_id: quota.id, quantity: 110 }], { sales_order_id: edited }))).toEqual(
      [],
    );
    expect(await warningsOf(validate([{ product_id: quota.id, quantity: 110.5 }], { sales_order_id: edited }))).toEqual(
      [overQuota(quota, `LIC-${quota.code}-1`, '110.5', '110', '150', '40')],
    );
  });

  it('an unlimited licence never warns on quantity, even beside a small limited one', async () => {
    const unlimited = await product({ licences: [wide(null)] });
    const both = await product({ licences: [wide('1'), wide(null)] });
    await placeOrder([{ product_id: unlimited.id, quantity: 999_999 }]);

    const warnings = await warningsOf(
      validate([
        { product_id: unlimited.id, quantity: 999_999_999.999 },
        { product_id: both.id, quantity: 5000 },
      ]),
    );

    expect(warnings).toEqual([]);
  });

  it('with several limited licences valid, the sale draws on the one with the most left', async () => {
    const twoLicences = await product({
      licences: [
        { validFrom: '2026-01-01', validTo: '2026-12-31', quantity: '100' },
        { validFrom: '2026-11-01', validTo: '2027-10-31', quantity: '50' },
      ],
    });
    // The 20 on the order date count against both licences, the 50 of August only against the
    // first: 30 left on each, and on a tie the licence valid longer (the second) is named.
    await placeOrder([{ product_id: twoLicences.id, quantity: 20 }]);
    await placeOrder([{ product_id: twoLicences.id, quantity: 50 }], '2026-08-01');

    expect(await warningsOf(validate([{ product_id: twoLicences.id, quantity: 30 }]))).toEqual([]);
    expect(await warningsOf(validate([{ product_id: twoLicences.id, quantity: 31 }]))).toEqual([
      overQuota(twoLicences, `LIC-${twoLicences.code}-2`, '31', '30', '50', '20'),
    ]);
  });

  it('an over-used licence has nothing left', async () => {
    const quota = await product({ licences: [wide('10')] });
    await placeOrder([{ product_id: quota.id, quantity: 15 }]);

    expect(await warningsOf(validate([{ product_id: quota.id, quantity: 1 }]))).toEqual([
      overQuota(quota, `LIC-${quota.code}-1`, '1', '0', '10', '15'),
    ]);
  });

  it('combines warnings: expiring and over quota on one product, one line each in the message', async () => {
    const both = await product({ licences: [{ validFrom: '2026-01-01', validTo: daysAfter(5), quantity: '10' }] });
    const none = await product();
    const fine = await product({ licences: [wide(null)] });

    const response = await validate([
      { product_id: fine.id, quantity: 1 },
      { product_id: both.id, quantity: 11 },
      { product_id: none.id, quantity: 1 },
    ]);

    const expected = [
      expiring(both, `LIC-${both.code}-1`, daysAfter(5), 5),
      overQuota(both, `LIC-${both.code}-1`, '11', '10', '10', '0'),
      noLicence(none),
    ];
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      data: {
        validation_message: `${expected[0]!.message}\n${expected[1]!.message}\n${expected[2]!.message}`,
        has_warnings: true,
        warnings: expected,
      },
    });
  });

  it('compares exact decimals: a 0.3 quota holds 0.1 + 0.2, stored or requested', async () => {
    const quota = await product({ licences: [wide('0.3')] });

    expect(
      await warningsOf(
        validate([
          { product_id: quota.id, quantity: 0.1 },
          { product_id: quota.id, quantity: 0.2 },
        ]),
      ),
    ).toEqual([]);
    expect(
      await warningsOf(
        validate([
          { product_id: quota.id, quantity: 0.1 },
          { product_id: quota.id, quantity: 0.2 },
          { product_id: quota.id, quantity: 0.001 },
        ]),
      ),
    ).toEqual([overQuota(quota, `LIC-${quota.code}-1`, '0.301', '0.3', '0.3', '0')]);

    await placeOrder([{ product_id: quota.id, quantity: 0.1 }]);
    expect(await warningsOf(validate([{ product_id: quota.id, quantity: 0.2 }]))).toEqual([]);
  });

  it('checks on the order date: a licence expired today was valid on an earlier order date', async () => {
    const ended = await product({ licences: [{ validFrom: '2026-01-01', validTo: daysAfter(-10), quantity: null }] });

    expect(await warningsOf(validate([{ product_id: ended.id, quantity: 1 }]))).toEqual([noLicence(ended)]);
    const earlier = daysAfter(-15);
    const warnings = await warningsOf(validate([{ product_id: ended.id, quantity: 1 }], { sales_order_date: earlier }));
    expect(warnings).toEqual([
      {
        product_id: ended.id,
        code: 'licence_expiring',
        message: `${label(ended)}: licence LIC-${ended.code}-1 expires on ${daysAfter(-10)}, 5 days after the order date (${earlier}).`,
      },
    ]);
  });

  it('without sales_order_date, checks on today (UTC)', async () => {
    const before = formatCalendarDate(new Date());
    const shiftToday = (days: number) => formatCalendarDate(addDays(parseCalendarDate(before), days));
    const soon = await product({
      licences: [{ validFrom: shiftToday(-100), validTo: shiftToday(10), quantity: null }],
    });
    const ended = await product({
      licences: [{ validFrom: shiftToday(-100), validTo: shiftToday(-5), quantity: null }],
    });

    const response = await suite.server.http.post('/sales-orders/validate-licence').send({
      sales_order_details: [
        { product_id: soon.id, quantity: 1 },
        { product_id: ended.id, quantity: 1 },
      ],
    });
    const after = formatCalendarDate(new Date());

    expect(response.status).toBe(200);
    const warnings = response.body.data.warnings;
    expect(warnings.map((warning: { code: string }) => warning.code)).toEqual(['licence_expiring', 'no_valid_licence']);
    // The day may turn between the two readings of the clock.
    expect([before, after]).toContain(/after the order date \((\d{4}-\d{2}-\d{2})\)/.exec(warnings[0].message)?.[1]);
    expect([before, after]).toContain(/none is valid on (\d{4}-\d{2}-\d{2})/.exec(warnings[1].message)?.[1]);
  });

  it('unknown or inactive products are a 422 naming each offending line', async () => {
    const known = await product({ licences: [wide(null)] });

    const response = await validate([
      { product_id: known.id, quantity: 1 },
      { product_id: 999_999, quantity: 1 },
      { product_id: suite.fixtures.products.inactiveProduct.id, quantity: 1 },
    ]);

    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      success: false,
      error: {
        message: 'Validation failed',
        code: 422,
        details: [
          {
            path: 'sales_order_details.1.product_id',
            message: 'product 999999 does not exist',
            code: 'unknown_product',
          },
          {
            path: 'sales_order_details.2.product_id',
            message: `product ${suite.fixtures.products.inactiveProduct.id} is inactive`,
            code: 'unknown_product',
          },
        ],
      },
    });
  });

  it('a body that does not fit the contract is a 400', async () => {
    const known = await product();
    const cases = [
      { sales_order_details: [] },
      { sales_order_details: [{ product_id: known.id, quantity: 0 }] },
      { sales_order_details: [{ product_id: known.id, quantity: 1.0001 }] },
      { sales_order_details: [{ product_id: known.id, quantity: 1 }], sales_order_date: '2026-02-30' },
    ];
    for (const body of cases) {
      const response = await suite.server.http.post('/sales-orders/validate-licence').send(body);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe(400);
      expect(response.body.error.details.length).toBeGreaterThan(0);
    }
  });
});

describe('validate-licence query count', () => {
  let server: QueryCountingServer;

  beforeAll(async () => {
    server = await startQueryCountingServer();
  });
  afterAll(() => server?.close());

  it('costs one statement for one line or a hundred', async () => {
    const prisma = server.database.prisma;
    const fixtures = await createFixtures(prisma);
    const products: Product[] = [];
    for (let index = 0; index < 25; index += 1) {
      products.push(await createLicensedProduct(prisma, { licences: [wide(String(100 + index))] }));
    }
    const created = await server.http.post('/sales-orders').send(
      orderBody(fixtures, {
        details: products.map((p) => ({ product_id: p.id, quantity: 1, rate: 1 })),
        other_charges: [],
        status: 'confirmed',
      }),
    );
    expect(created.status).toBe(201);

    const oneLine = await server.queriesDuring(() =>
      server.http
        .post('/sales-orders/validate-licence')
        .send({ sales_order_date: ORDER_DATE, sales_order_details: [{ product_id: products[0]!.id, quantity: 1 }] })
        .expect(200),
    );
    let response: { body: { data: { warnings: unknown[] } } } | undefined;
    const manyLines = await server.queriesDuring(async () => {
      response = await server.http
        .post('/sales-orders/validate-licence')
        .send({
          sales_order_date: ORDER_DATE,
          sales_order_details: Array.from({ length: 100 }, (_, index) => ({
            product_id: products[index % 25]!.id,
            quantity: 26,
          })),
        })
        .expect(200);
    });

    expect(oneLine).toHaveLength(1);
    expect(manyLines).toHaveLength(1);
    // 4 lines of 26 = 104 per product, more than is left (quota less the 1 ordered) only for quotas 100 to 104.
    expect(response!.body.data.warnings).toHaveLength(5);
  });
});
