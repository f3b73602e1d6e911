import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';

import { orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';

/**
 * GET /reports/sales as CSV: every row, RFC 4180 quoting, UTF-8, text cells that would start a
 * spreadsheet formula prefixed (OWASP CSV injection), numbers as they are, and
 * REPORT_CSV_MAX_ROWS.
 */

const suite = useServerWithFixtures({ REPORT_CSV_MAX_ROWS: '12' });

/** Customer names a host may hold: quoting, line breaks, formulas, non-ASCII. */
const NAMES = [
  'Plain Traders',
  'Comma, Quote " and Co',
  'Two\r\nLines Ltd',
  '=HYPERLINK("http://evil.example","x")',
  '+8801700000000',
  '-2+3',
  '@SUM(A1)',
  '\tTabbed',
  '\rReturned',
  'কৃষি ভাণ্ডার',
];

describe('sales reports as CSV', () => {
  beforeAll(async () => {
    for (const [index, name] of NAMES.entries()) {
      const customer = await suite.server.database.prisma.customer.create({ data: { code: `CSV${index}`, name } });
      await suite.server.http
        .post('/sales-orders')
        .send(
          orderBody(suite.fixtures, {
            customer_id: customer.id,
            status: 'confirmed',
            acknowledge_warnings: true,
            // A discount: a negative charges total, which must stay a number.
            other_charges: [{ description: 'Discount', amount: -((index + 1) * 1005) / 100 }],
          }),
        )
        .expect(201);
    }
  }, 120_000);

  const query = { group_by: 'customer', metrics: 'order_count,other_charges_total,grand_total' };

  it('answers every row with a header, CRLF records, quoting, and formula-like text prefixed; numbers untouched', async () => {
    const answer = await suite.server.http.get('/reports/sales').query(query).set('Accept', 'text/csv').expect(200);
    expect(answer.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(answer.headers['content-disposition']).toBe('attachment; filename="sales-report.csv"');
    const text = answer.text;
    expect(text.startsWith('customer_id,customer_name,order_count,other_charges_total,grand_total\r\n')).toBe(true);
    // Every record ends with CRLF; the line break inside a name is inside quotes.
    expect(text.endsWith('\r\n')).toBe(true);
    const records: string[][] = parse(text, { record_delimiter: '\r\n' });
    const json = await suite.server.http
      .get('/reports/sales')
      .query({ ...query, limit: '1000' })
      .expect(200);
    expect(records.slice(1).map((record) => record[0])).toEqual(
      json.body.data.rows.map((row: { customer_id: number }) => String(row.customer_id)),
    );
    const names = Object.fromEntries(records.slice(1).map((record) => [record[0], record[1]]));
    const byName = new Map(
      json.body.data.rows.map((row: { customer_id: number; customer_name: string }) => [
        row.customer_name,
        String(row.customer_id),
      ]),
    );
    const cell = (name: string) => names[byName.get(name) as string];
    expect(cell('Plain Traders')).toBe('Plain Traders');
    expect(cell('Comma, Quote " and Co')).toBe('Comma, Quote " and Co');
    expect(cell('Two\r\nLines Ltd')).toBe('Two\r\nLines Ltd');
    expect(text).toContain('"Comma, Quote "" and Co"');
    for (const name of [
      '=HYPERLINK("http://evil.example","x")',
      '+8801700000000',
      '-2+3',
      '@SUM(A1)',
      '\tTabbed',
      '\rReturned',
    ])
      expect(cell(name), JSON.stringify(name)).toBe(`'${name}`);
    expect(cell('কৃষি ভাণ্ডার')).toBe('কৃষি ভাণ্ডার');
    // Negative amounts are numbers, written as the JSON's: never prefixed.
    const charges = records.slice(1).map((record) => record[3]!);
    expect(charges.every((value) => /^-\d+(\.\d+)?$/.test(value))).toBe(true);
    expect(records.slice(1).map((record) => Number(record[4]))).toEqual(
      json.body.data.rows.map((row: { grand_total: number }) => row.grand_total),
    );
  });

  it('answers the same with format=csv, without paging: limit and cursor do not cut it', async () => {
    const byAccept = await suite.server.http.get('/reports/sales').query(query).set('Accept', 'text/csv').expect(200);
    const byFormat = await suite.server.http
      .get('/reports/sales')
      .query({ ...query, format: 'csv', limit: '1' })
      .expect(200);
    expect(byFormat.text).toBe(byAccept.text);
    expect(parse(byFormat.text, { record_delimiter: '\r\n' })).toHaveLength(1 + NAMES.length);
  });

  it('refuses a report of more rows than REPORT_CSV_MAX_ROWS with 422 report_too_large, as JSON', async () => {
    const refused = await suite.server.http
      .get('/reports/sales')
      .query({ group_by: 'customer,product', metrics: 'order_count,subtotal', format: 'csv' })
      .expect(422);
    expect(refused.headers['content-type']).toMatch(/^application\/json/);
    expect(refused.body.error.details.map((detail: { code: string }) => detail.code)).toEqual(['report_too_large']);
    // Ten rows, within the bound, are answered.
    const within = await suite.server.http
      .get('/reports/sales')
      .query({ group_by: 'customer', metrics: 'order_count', format: 'csv', status: 'confirmed' })
      .expect(200);
    expect(parse(within.text, { record_delimiter: '\r\n' })).toHaveLength(1 + NAMES.length);
  });
});
