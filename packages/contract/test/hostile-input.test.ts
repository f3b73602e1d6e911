import type { ParameterObject } from 'openapi3-ts/oas30';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';

import {
  CalculateTotalsBodySchema,
  CreateSalesOrderBodySchema,
  DROPDOWN_LIMIT_DEFAULT,
  DropdownQuerySchema,
  idParam,
  isStorableText,
  MaxNumberQuerySchema,
  SalesOrderIdParamsSchema,
  SchemaIssueCode,
  UpdateSalesOrderBodySchema,
} from '../src/index.js';
import { createOpenApiDocument } from '../src/openapi.js';

describe('integer ids in paths and query strings', () => {
  it.each(['1', '42', '2147483647'])('reads %s', (text) => {
    expect(idParam().parse(text)).toBe(Number(text));
  });

  it('takes numbers as they are, as the SDK passes them', () => {
    expect(idParam().parse(7)).toBe(7);
    expect(idParam().safeParse(1.5).success).toBe(false);
  });

  // Number() reads each of these as an integer (1000, 16, 1, 1, 1, 1, 1, 0, 1): none is written
  // the one way a client that means the number writes it.
  it.each(['1e3', '0x10', '+1', ' 1', '1 ', '1.0', '01', '00', '0b1', '１', '1_000', ''])(
    'refuses %j as not canonical',
    (text) => {
      const result = idParam().safeParse(text);
      expect(result.success).toBe(false);
      expect(result.error?.issues).toEqual([
        expect.objectContaining({ code: 'custom', params: { code: SchemaIssueCode.invalidInteger }, path: [] }),
      ]);
    },
  );

  it.each(['0', '2147483648', '99999999999999999999'])('refuses %s as out of range', (text) => {
    expect(idParam().safeParse(text).success).toBe(false);
  });

  it('applies to every id the contract reads from a URL', () => {
    expect(SalesOrderIdParamsSchema.safeParse({ id: '1e3' }).success).toBe(false);
    expect(SalesOrderIdParamsSchema.parse({ id: '12' })).toEqual({ id: 12 });
    const maxNumber = MaxNumberQuerySchema.safeParse({ year_id: '0x10', location_id: '+1' });
    expect(maxNumber.error?.issues.map((issue) => issue.path.join('.')).sort()).toEqual(['location_id', 'year_id']);
    expect(DropdownQuerySchema.safeParse({ selected_id: '1.0' }).success).toBe(false);
    expect(DropdownQuerySchema.parse({})).toEqual({ limit: DROPDOWN_LIMIT_DEFAULT });
  });

  it('keeps number inputs for typed callers', () => {
    expectTypeOf<z.input<typeof MaxNumberQuerySchema>>().toEqualTypeOf<{ year_id: number; location_id: number }>();
    expectTypeOf<z.input<typeof SalesOrderIdParamsSchema>>().toEqualTypeOf<{ id: number }>();
    expectTypeOf<z.input<typeof DropdownQuerySchema>>().toEqualTypeOf<{
      selected_id?: number | undefined;
      q?: string | undefined;
      limit?: number | undefined;
    }>();
  });

  it('keeps integer parameters in the OpenAPI document', () => {
    const document = createOpenApiDocument();
    const parameters = Object.values(document.paths).flatMap((item) =>
      ['get', 'put', 'patch', 'post', 'delete'].flatMap(
        (method) => (item as Record<string, { parameters?: ParameterObject[] }>)[method]?.parameters ?? [],
      ),
    );
    const ids = parameters.filter((parameter) =>
      ['id', 'year_id', 'location_id', 'selected_id'].includes(parameter.name),
    );
    // GET, PUT and DELETE /sales-orders/{id}, its history and its four transitions; GET, PATCH and DELETE
    // /webhook-endpoints/{id}, its rotate-secret, deliveries, replay and ping; GET /imports/{id}, its results and
    // cancel; GET and PATCH /api-keys/{id}, its rotate, revoke and history; max-number, the list and the sales
    // report filter by year and location; POST and GET /sales-orders/{id}/deliveries, GET /deliveries/{id}, its
    // cancel and returns, and the delivery list by location; POST and GET /sales-orders/{id}/changes, its apply and
    // discard.
    expect(ids.map((parameter) => parameter.name).sort()).toEqual([
      ...Array.from({ length: 32 }, () => 'id'),
      'location_id',
      'location_id',
      'location_id',
      'location_id',
      'selected_id',
      'year_id',
      'year_id',
      'year_id',
    ]);
    for (const parameter of ids)
      expect(parameter.schema, parameter.name).toMatchObject({ type: 'integer', maximum: 2147483647 });
  });
});

describe('storable text', () => {
  it.each(['plain', 'tab\tand\r\nbreaks', 'emoji 😀 (a surrogate pair)', 'ক্রেতা', ''])('accepts %j', (text) => {
    expect(isStorableText(text)).toBe(true);
  });

  it.each([
    'nul \u0000',
    'bell \u0007',
    'del \u007f',
    'high \ud800 alone',
    'low \udc00 alone',
    'end \ud83d',
    '\udc00\ud800',
  ])('refuses %j', (text) => {
    expect(isStorableText(text)).toBe(false);
  });

  const line = { product_id: 1, quantity: 1, rate: 1 };
  const order = { customer_id: 1, sales_order_date: '2026-11-21', location_id: 1, details: [line] };

  it.each(['\u0000', '\ud800'])('is required of every text field in bodies (%j)', (bad) => {
    const text = `a${bad}b`;
    const cases: [z.ZodTypeAny, unknown, string][] = [
      [CreateSalesOrderBodySchema, { ...order, remarks: text }, 'remarks'],
      [CreateSalesOrderBodySchema, { ...order, details: [{ ...line, remarks: text }] }, 'details.0.remarks'],
      [
        CreateSalesOrderBodySchema,
        { ...order, other_charges: [{ description: text, amount: 1 }] },
        'other_charges.0.description',
      ],
      [CreateSalesOrderBodySchema, { ...order, sales_order_no: text }, 'sales_order_no'],
      [UpdateSalesOrderBodySchema, { remarks: text }, 'remarks'],
      [UpdateSalesOrderBodySchema, { details: [{ ...line, remarks: text }] }, 'details.0.remarks'],
      [
        CalculateTotalsBodySchema,
        { details: [line], other_charges: [{ description: text, amount: 1 }] },
        'other_charges.0.description',
      ],
    ];
    for (const [schema, body, path] of cases) {
      const result = schema.safeParse(body);
      expect(result.success, path).toBe(false);
      expect(
        result.error?.issues.map((issue) => issue.path.join('.')),
        path,
      ).toEqual([path]);
    }
  });
});
