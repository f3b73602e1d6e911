import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';

import {
  calendarDate,
  CreateSalesOrderBodySchema,
  decimalPlaces,
  isCalendarDate,
  money,
  orderNumber,
  quantity,
  rate,
  SalesOrderDetailInputSchema,
  UpdateSalesOrderBodySchema,
} from '../src/index.js';

describe('decimalPlaces', () => {
  it.each([
    [1, 0],
    [1.5, 1],
    [33.333, 3],
    [0.1, 1],
    [1e-7, 7],
    [1.5e-7, 8],
    [1e21, 0],
    [-2.25, 2],
  ])('%s has %s decimal places', (value, places) => {
    expect(decimalPlaces(value)).toBe(places);
  });
});

describe('calendar dates', () => {
  it.each(['2026-11-21', '2024-02-29', '2000-02-29', '0001-01-01'])('accepts %s', (text) => {
    expect(isCalendarDate(text)).toBe(true);
    expect(calendarDate().safeParse(text).success).toBe(true);
  });

  it.each([
    '2026-02-29',
    '2026-13-01',
    '2026-00-10',
    '2026-04-31',
    '26-11-21',
    '2026-11-21T00:00:00Z',
    '2026/11/21',
    '',
  ])('refuses %s', (text) => {
    expect(isCalendarDate(text)).toBe(false);
    const result = calendarDate().safeParse(text);
    expect(result.success).toBe(false);
  });
});

describe('decimal fields', () => {
  it('bounds quantity: > 0, at most 3 decimals', () => {
    expect(quantity().safeParse(0.001).success).toBe(true);
    expect(quantity().safeParse(0).success).toBe(false);
    expect(quantity().safeParse(1.0001).success).toBe(false);
    expect(quantity().safeParse(1_000_000_000).success).toBe(false);
    expect(quantity().safeParse(Number.NaN).success).toBe(false);
    expect(quantity().safeParse('1').success).toBe(false);
  });

  it('bounds rate: >= 0, at most 4 decimals', () => {
    expect(rate().safeParse(0).success).toBe(true);
    expect(rate().safeParse(0.0001).success).toBe(true);
    expect(rate().safeParse(0.00001).success).toBe(false);
    expect(rate().safeParse(-0.01).success).toBe(false);
  });

  it('bounds money: cents, negative allowed', () => {
    expect(money().safeParse(-50.25).success).toBe(true);
    expect(money().safeParse(1.005).success).toBe(false);
    expect(money().safeParse(10_000_000_000_000).success).toBe(false);
  });
});

describe('order numbers', () => {
  it.each(['DHK-2026-00042', 'X-10', 'SO/2026/7', 'a', 'MANUAL', `A${'9'.repeat(18)}`, `A-${'0'.repeat(20)}12`])(
    'accepts %s',
    (text) => {
      expect(orderNumber().safeParse(text).success).toBe(true);
    },
  );

  it.each(['', ' DHK-1', 'DHK 1', 'DHK-1-', '-1', 'x'.repeat(51), `A${'9'.repeat(19)}`, 'DHK\u00001'])(
    'refuses %j',
    (text) => {
      expect(orderNumber().safeParse(text).success).toBe(false);
    },
  );
});

describe('order bodies', () => {
  const line = { product_id: 1, quantity: 1, rate: 1 };

  it('accepts null for optional create fields and ignores unknown ones', () => {
    const result = CreateSalesOrderBodySchema.safeParse({
      customer_id: 1,
      sales_order_date: '2026-11-21',
      location_id: 1,
      sales_order_no: null,
      grand_total: null,
      remarks: null,
      details: [{ ...line, packsize_id: null, amount: null, remarks: null, product_name: 'read shape' }],
      sales_order_id: 99,
    });
    expect(result.success).toBe(true);
    expect(result.success && 'sales_order_id' in result.data).toBe(false);
  });

  it('trims other charge descriptions and refuses blank ones', () => {
    const body = { customer_id: 1, sales_order_date: '2026-11-21', location_id: 1, details: [line] };
    const trimmed = CreateSalesOrderBodySchema.parse({
      ...body,
      other_charges: [{ description: '  Carriage ', amount: 1 }],
    });
    expect(trimmed.other_charges?.[0]?.description).toBe('Carriage');
    expect(
      CreateSalesOrderBodySchema.safeParse({ ...body, other_charges: [{ description: '   ', amount: 1 }] }).success,
    ).toBe(false);
  });

  it('needs at least one field on update, and cannot clear required fields', () => {
    expect(UpdateSalesOrderBodySchema.safeParse({}).success).toBe(false);
    expect(UpdateSalesOrderBodySchema.safeParse({ remarks: null }).success).toBe(true);
    expect(UpdateSalesOrderBodySchema.safeParse({ customer_id: null }).success).toBe(false);
    expect(UpdateSalesOrderBodySchema.safeParse({ details: [] }).success).toBe(false);
  });
});

describe('detail lines (plainObject)', () => {
  // The same shape as an ordinary zod object: what the fast path must agree with.
  const ordinary = z.object(SalesOrderDetailInputSchema.shape);
  const outcome = (result: z.SafeParseReturnType<unknown, Record<string, unknown>>) =>
    result.success ? { keys: Object.keys(result.data), data: result.data } : { issues: result.error.issues };
  const valid = { product_id: 1, quantity: 1, rate: 1 };
  const lines: unknown[] = [
    valid,
    { ...valid, packsize_id: null, amount: null, remarks: null },
    { product_id: 7, packsize_id: 3, quantity: 33.333, rate: 0.0001, amount: 12.345, remarks: 'by sea' },
    { remarks: 'first', rate: 1260, quantity: 0.5, product_id: 6 },
    { ...valid, product_name: 'read shape', sales_order_detail_id: 4 },
    { ...valid, remarks: undefined },
    { ...valid, rate: -0 },
    { ...valid, quantity: 999_999_999.999, rate: 9_999_999_999.9999, amount: -9_999_999_999_999.99 },
    JSON.parse('{"__proto__": {"x": 1}, "product_id": 1, "quantity": 1, "rate": 1}'),
    Object.assign(Object.create(null), valid),
    ...[0, 1.5, '1', null, undefined, 2_147_483_648].map((product_id) => ({ ...valid, product_id })),
    ...[0, -0, -1, 1.0001, 1_000_000_000, Number.NaN, Infinity, '1', null].map((quantity) => ({ ...valid, quantity })),
    ...[-0.01, 0.00001, 10_000_000_000, '1', undefined].map((rate) => ({ ...valid, rate })),
    ...[0, 1.5, '2'].map((packsize_id) => ({ ...valid, packsize_id })),
    ...['x', 10_000_000_000_000, Number.NaN].map((amount) => ({ ...valid, amount })),
    ...['a\u0000b', 'x'.repeat(1001), 5, '\uD800'].map((remarks) => ({ ...valid, remarks })),
    null,
    [],
    'line',
    5,
    new Date(0),
  ];

  it('parses each line as an ordinary zod object does: the same value, keys in the same order, the same issues', () => {
    for (const line of lines)
      expect(outcome(SalesOrderDetailInputSchema.safeParse(line)), JSON.stringify(line)).toEqual(
        outcome(ordinary.safeParse(line)),
      );
    const body = { customer_id: 1, sales_order_date: '2026-11-21', location_id: 1, details: lines };
    expect(outcome(CreateSalesOrderBodySchema.safeParse(body))).toEqual(
      outcome(CreateSalesOrderBodySchema.extend({ details: z.array(ordinary) }).safeParse(body)),
    );
  });

  it("leaves a valid line to zod's object parse only when it cannot vouch for it", () => {
    const parse = vi.spyOn(z.ZodObject.prototype, '_parse');
    try {
      SalesOrderDetailInputSchema.parse(lines[2]);
      SalesOrderDetailInputSchema.parse(lines[3]);
      expect(parse).not.toHaveBeenCalled();
      SalesOrderDetailInputSchema.safeParse({ ...valid, quantity: 0 });
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      parse.mockRestore();
    }
  });
});
