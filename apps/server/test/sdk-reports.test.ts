import { createSalesOrderClient, SalesOrderApiError, type SalesReportRowOf } from '@sales-order/client';
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, expectTypeOf, it } from 'vitest';

import { orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';
import { signJwt } from './support/tokens.js';

/** The SDK's reports against the real service: typed rows, the pages in turn, the CSV as a text stream. */
describe('SDK sales reports', () => {
  const suite = useServerWithFixtures({ REPORT_CSV_MAX_ROWS: '3' });
  const client = () =>
    createSalesOrderClient({
      baseUrl: suite.server.api,
      auth: { type: 'bearer', token: () => signJwt({ payload: { permissions: ['reports.read'] } }) },
    });

  beforeAll(async () => {
    const { dhaka, chattogram } = suite.fixtures.locations;
    for (const [location, date] of [
      [dhaka.id, '2026-10-02'],
      [dhaka.id, '2026-11-15'],
      [chattogram.id, '2026-11-15'],
      [chattogram.id, '2026-12-01'],
    ] as const)
      await suite.server.http
        .post('/sales-orders')
        .send(orderBody(suite.fixtures, { location_id: location, sales_order_date: date }))
        .expect(201);
  }, 120_000);

  it('salesReport types each row by the keys and metrics asked for; salesReportPages walks every page', async () => {
    const page = await client().salesReport({
      group_by: ['location', 'month'],
      metrics: ['order_count', 'grand_total'],
    });
    expectTypeOf(page.rows[0]!).toEqualTypeOf<SalesReportRowOf<'location' | 'month', 'order_count' | 'grand_total'>>();
    expectTypeOf(page.rows[0]!.location_name).toEqualTypeOf<string>();
    expectTypeOf(page.totals.grand_total).toEqualTypeOf<number>();
    // @ts-expect-error: not asked for, not in the row's type
    void page.rows[0]!.subtotal;
    expect(page.rows).toEqual([
      {
        location_id: suite.fixtures.locations.chattogram.id,
        location_name: 'Chattogram',
        month: '2026-11',
        order_count: 1,
        grand_total: 7905,
      },
      {
        location_id: suite.fixtures.locations.chattogram.id,
        location_name: 'Chattogram',
        month: '2026-12',
        order_count: 1,
        grand_total: 7905,
      },
      {
        location_id: suite.fixtures.locations.dhaka.id,
        location_name: 'Dhaka',
        month: '2026-10',
        order_count: 1,
        grand_total: 7905,
      },
      {
        location_id: suite.fixtures.locations.dhaka.id,
        location_name: 'Dhaka',
        month: '2026-11',
        order_count: 1,
        grand_total: 7905,
      },
    ]);
    expect(page.totals).toEqual({ order_count: 4, grand_total: 31620 });
    // Default metrics when none are asked for.
    const byDefault = await client().salesReport({ group_by: ['location'] });
    expectTypeOf(byDefault.totals).toEqualTypeOf<{ order_count: number; grand_total: number }>();
    const pages = [];
    for await (const each of client().salesReportPages({ group_by: ['location', 'month'], limit: 3 })) pages.push(each);
    expect(pages.map((each) => each.rows.length)).toEqual([3, 1]);
    expect(pages.flatMap((each) => each.rows)).toEqual(page.rows);
  });

  it('salesReportCsv streams the CSV text; a refusal rejects with the typed error', async () => {
    const stream = await client().salesReportCsv({ group_by: ['location'], metrics: ['order_count', 'subtotal'] });
    let text = '';
    for await (const chunk of stream) text += chunk;
    expect(parse(text)).toEqual([
      ['location_id', 'location_name', 'order_count', 'subtotal'],
      [String(suite.fixtures.locations.chattogram.id), 'Chattogram', '2', '15110'],
      [String(suite.fixtures.locations.dhaka.id), 'Dhaka', '2', '15110'],
    ]);
    const tooLarge = await client()
      .salesReportCsv({ group_by: ['location', 'month'] })
      .catch((error: unknown) => error);
    expect(tooLarge).toBeInstanceOf(SalesOrderApiError);
    expect((tooLarge as SalesOrderApiError).status).toBe(422);
    expect((tooLarge as SalesOrderApiError).details.map((detail) => detail.code)).toEqual(['report_too_large']);
    const refused = await client()
      .salesReport({ group_by: ['location'], metrics: ['pending_quantity'] })
      .catch((error: unknown) => error);
    expect((refused as SalesOrderApiError).details.map((detail) => detail.code)).toEqual(['quantity_needs_product']);
  });
});
