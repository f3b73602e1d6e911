import { describe, expect, it } from 'vitest';

import {
  CreateSalesOrderBodySchema,
  MAX_ID,
  OtherChargeInputSchema,
  SalesOrderDetailInputSchema,
  UpdateSalesOrderBodySchema,
} from '../src/index.js';
import { createOpenApiDocument } from '../src/openapi.js';
import { OPERATION_RESPONSE_HEADERS } from '../src/openapi-headers.js';

/**
 * The document states the rules the schemas enforce. Each rule is checked by asking both: the
 * zod schema the server validates with, and the keyword the document publishes.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- walking a generated document

const document = createOpenApiDocument() as Json;
const schemas = document.components.schemas as Json;
const property = (component: string, name: string): Json => schemas[component].properties[name];
/** An ECMA-262 pattern as validators such as ajv read it. */
const documented = (pattern: string) => new RegExp(pattern, 'u');

/** The calendar, independently of any expression: does this day exist? */
const isRealDay = (year: number, month: number, day: number) => {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return year >= 1 && date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
};

describe('the OpenAPI document states what the server checks', () => {
  it('dates: format date and a pattern that knows the calendar, the one the server uses', () => {
    const date = property('CreateSalesOrderBody', 'sales_order_date');
    expect(date).toMatchObject({ type: 'string', format: 'date', minLength: 10, maxLength: 10 });
    const pattern = documented(date.pattern);
    const server = CreateSalesOrderBodySchema.shape.sales_order_date;
    const pad = (value: number, width: number) => String(value).padStart(width, '0');
    let checked = 0;
    for (let year = 0; year <= 9999; year += 1) {
      for (let month = 0; month <= 13; month += 1) {
        for (const day of [0, 1, 28, 29, 30, 31, 32]) {
          const text = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
          const real = isRealDay(year, month, day);
          if (pattern.test(text) !== real) throw new Error(`the document's pattern says ${!real} for ${text}`);
          // The server check is the slow part: every 7th year is plenty to show they are one rule.
          if (year % 7 === 0 && server.safeParse(text).success !== real)
            throw new Error(`the server says ${!real} for ${text}`);
          checked += 1;
        }
      }
    }
    expect(checked).toBe(10_000 * 14 * 7);
    for (const text of ['2026-1-01', '2026-01-01T00:00:00Z', ' 2026-01-01', '20260101', '2026-01-01\n']) {
      expect(pattern.test(text), text).toBe(false);
    }
  }, 60_000);

  it('order numbers: length and pattern, trailing digits included, as the server reads them', () => {
    const number = property('CreateSalesOrderBody', 'sales_order_no');
    expect(number).toMatchObject({ type: 'string', minLength: 1, maxLength: 50 });
    const pattern = documented(number.pattern);
    const server = CreateSalesOrderBodySchema.shape.sales_order_no;
    const byDocument = (text: string) => text.length >= 1 && text.length <= 50 && pattern.test(text);
    // Every string of up to 4 characters over an alphabet with each kind of character, then
    // long ones around the limits of length and trailing digits.
    const alphabet = ['A', 'z', '0', '7', '-', '/', '_', '.', '#', ' '];
    let candidates = [''];
    const all: string[] = [];
    for (let length = 1; length <= 4; length += 1) {
      candidates = candidates.flatMap((prefix) => alphabet.map((character) => prefix + character));
      all.push(...candidates);
    }
    for (const prefix of ['', 'DHK-2026-', 'A', 'A.', '0']) {
      for (const digits of [17, 18, 19, 30]) {
        all.push(
          `${prefix}${'9'.repeat(digits)}`,
          `${prefix}000${'1'.repeat(digits)}`,
          `${prefix}${'0'.repeat(digits + 5)}`,
        );
      }
    }
    all.push('A'.repeat(50), 'A'.repeat(51), `${'A'.repeat(49)}-`, 'DHK-2026-00042', 'dhk-2026-0001');
    // The rule in words, written independently of the expression: 1-50 of the allowed
    // characters, a letter or digit at each end, at most 18 digits after the leading zeros of
    // the trailing digits.
    const byRule = (text: string) =>
      /^[A-Za-z0-9](?:[A-Za-z0-9/_.-]{0,48}[A-Za-z0-9])?$/.test(text) &&
      (/(\d+)$/.exec(text)?.[1] ?? '').replace(/^0+/, '').length <= 18;
    expect(all.filter((text) => byRule(text) !== server.safeParse(text).success)).toEqual([]);
    expect(all.filter((text) => byDocument(text) !== server.safeParse(text).success)).toEqual([]);
    expect(all.filter(byDocument).length).toBeGreaterThan(1000);
  });

  it('decimals: multipleOf with the scale the server allows', () => {
    expect(SalesOrderDetailInputSchema.shape.quantity.safeParse(1.001).success).toBe(true);
    expect(SalesOrderDetailInputSchema.shape.quantity.safeParse(1.0001).success).toBe(false);
    expect(property('SalesOrderDetailInput', 'quantity')).toMatchObject({
      type: 'number',
      multipleOf: 0.001,
      minimum: 0,
      exclusiveMinimum: true,
    });
    expect(property('SalesOrderDetailInput', 'rate')).toMatchObject({ type: 'number', multipleOf: 0.0001, minimum: 0 });
    expect(property('OtherChargeInput', 'amount')).toMatchObject({ type: 'number', multipleOf: 0.01 });
    expect(OtherChargeInputSchema.shape.amount.safeParse(0.001).success).toBe(false);
  });

  it('text: lengths and a pattern without the control characters the server refuses', () => {
    const remarks = property('CreateSalesOrderBody', 'remarks');
    expect(remarks).toMatchObject({ type: 'string', maxLength: 2000, nullable: true });
    const pattern = documented(remarks.pattern);
    const server = SalesOrderDetailInputSchema.shape.remarks;
    const disagreements: number[] = [];
    for (let code = 0; code <= 0xffff; code += 1) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const text = `a${String.fromCharCode(code)}b`;
      if (pattern.test(text) !== server.safeParse(text).success) disagreements.push(code);
    }
    expect(disagreements).toEqual([]);
    // Unpaired surrogates are refused by the document; a paired one (an emoji) is text.
    expect(pattern.test('a\uD800b')).toBe(false);
    expect(pattern.test('a\u{1F600}b')).toBe(true);

    const description = property('OtherChargeInput', 'description');
    expect(description).toMatchObject({ type: 'string', minLength: 1, maxLength: 200 });
    const required = documented(description.pattern);
    for (const [text, valid] of [
      ['Carriage', true],
      [' x ', true],
      ['   ', false],
      ['\u00a0\t', false],
      ['', false],
    ] as const) {
      expect(required.test(text), JSON.stringify(text)).toBe(valid);
      expect(OtherChargeInputSchema.shape.description.safeParse(text).success, JSON.stringify(text)).toBe(valid);
    }
  });

  it('limits of arrays, and an update that names at least one field', () => {
    expect(property('CreateSalesOrderBody', 'details')).toMatchObject({ minItems: 1, maxItems: 500 });
    expect(property('CreateSalesOrderBody', 'other_charges')).toMatchObject({ maxItems: 50 });
    expect(schemas.UpdateSalesOrderBody).toMatchObject({ minProperties: 1 });
    expect(UpdateSalesOrderBodySchema.safeParse({}).success).toBe(false);
  });

  it('integers: int32 with the bounds the server checks, in bodies, paths and queries', () => {
    const integers: Json[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node !== null && typeof node === 'object') {
        if ((node as Json).type === 'integer') integers.push(node);
        Object.values(node).forEach(walk);
      }
    };
    walk(document);
    expect(integers.length).toBeGreaterThan(30);
    for (const integer of integers) {
      expect(integer.format).toMatch(/^int(32|64)$/);
      expect(typeof integer.minimum).toBe('number');
      expect(typeof integer.maximum).toBe('number');
      expect(integer.exclusiveMinimum).toBeUndefined();
    }
    expect(property('CreateSalesOrderBody', 'customer_id')).toMatchObject({
      type: 'integer',
      format: 'int32',
      minimum: 1,
      maximum: MAX_ID,
    });
    const idParameter = document.paths['/sales-orders/{id}'].get.parameters[0];
    expect(idParameter).toMatchObject({
      in: 'path',
      name: 'id',
      schema: { type: 'integer', format: 'int32', minimum: 1, maximum: MAX_ID },
    });
  });

  it('every response declares the rate-limit and CORS headers the server sends; a 429 also Retry-After', () => {
    let responses = 0;
    for (const item of Object.values(document.paths as Json)) {
      for (const operation of Object.values(item as Json)) {
        for (const [status, response] of Object.entries((operation as Json).responses as Json)) {
          responses += 1;
          const own = Object.keys(
            OPERATION_RESPONSE_HEADERS[(operation as Json).operationId as string]?.[status] ?? {},
          );
          const expected = [
            'RateLimit',
            'RateLimit-Policy',
            'Access-Control-Allow-Origin',
            ...(status === '429' ? ['Retry-After'] : []),
            ...own,
          ];
          expect(Object.keys((response as Json).headers ?? {}), `${status}`).toEqual(expected);
        }
      }
    }
    expect(responses).toBeGreaterThan(40);
    expect(document.components.headers['Retry-After']).toMatchObject({ required: true, schema: { type: 'integer' } });
  });
});
