import { readFile } from 'node:fs/promises';

import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';

import { describeInChromium, expectAccessible, useChromiumPage } from './support/chromium-page.js';
import { orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';

/**
 * The order entry page's Reports screen in Chromium: the chart's numbers are the API's, the table
 * sorts and totals, Download CSV gives the service's CSV, axe-core finds nothing, nothing scrolls
 * sideways at 390 px, and a caller without reports.read gets no screen.
 */

const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 15_000, interval: 100 });

/** Whether the page or a panel scrolls sideways at its width. */
const scrollsSideways = (page: Page) =>
  page.evaluate<string[]>(`(() => {
    const problems = [];
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth > width) problems.push('the page: ' + document.documentElement.scrollWidth + ' > ' + width);
    for (const section of document.querySelectorAll('main section'))
      if (section.offsetParent !== null && section.scrollWidth > section.clientWidth) problems.push(section.id);
    return problems;
  })()`);

describeInChromium('order entry Reports screen in Chromium (needs Chromium)', () => {
  const suite = useServerWithFixtures({ ORDER_ENTRY_PAGE: 'true' });
  const chromium = useChromiumPage(suite);

  beforeAll(async () => {
    const { dhaka, chattogram } = suite.fixtures.locations;
    for (const [location, date, quantity] of [
      [dhaka.id, '2026-10-02', 10],
      [dhaka.id, '2026-11-15', 20],
      [chattogram.id, '2026-11-15', 5],
      [chattogram.id, '2026-12-01', 7],
      [chattogram.id, '2026-12-09', 1],
    ] as const)
      await suite.server.http
        .post('/sales-orders')
        .send(
          orderBody(suite.fixtures, {
            location_id: location,
            sales_order_date: date,
            details: [{ product_id: suite.fixtures.products.otherProduct.id, quantity, rate: 1200.5 }],
            other_charges: [],
          }),
        )
        .expect(201);
  }, 120_000);

  const openAs = async (
    permissions: string[],
    width = 1280,
  ): Promise<{ context: BrowserContext; page: Page; problems: string[] }> => {
    const { context, page, problems } = await chromium.open(
      {
        session: { userId: 'manager-1', permissions },
        context: { viewport: { width, height: 1000 }, acceptDownloads: true },
      },
      { untilLoaded: false },
    );
    return { context, page, problems };
  };

  /** The chart's data as its screen-reader table gives it: label -> series -> value. */
  const chartNumbers = (page: Page) =>
    page.evaluate<Record<string, Record<string, number>>>(`(() => {
      const table = document.getElementById('report-chart-data');
      const series = [...table.querySelectorAll('thead th')].slice(1).map((th) => th.textContent);
      const result = {};
      for (const row of table.querySelectorAll('tbody tr')) {
        const label = row.querySelector('th').textContent;
        result[label] = {};
        [...row.querySelectorAll('td')].forEach((td, index) => {
          if (td.dataset.value !== '') result[label][series[index]] = Number(td.dataset.value);
        });
      }
      return result;
    })()`);

  it("draws bars by location per month whose numbers are the API's; sorts; totals; downloads the CSV; axe finds nothing", async () => {
    const { context, page, problems } = await openAs(['sales_orders.read', 'reports.read']);
    const screen = page.locator('#reports');
    await screen.getByRole('heading', { name: 'Reports' }).waitFor();
    // The first report: by location, then month, orders and grand total.
    await eventually(() => page.locator('#report-chart-data tbody tr').count()).toBe(3);
    const api = (
      await suite.server.http.get('/reports/sales').query({ group_by: 'location,month', limit: '1000' }).expect(200)
    ).body.data;
    const expected: Record<string, Record<string, number>> = {};
    for (const row of api.rows) (expected[row.month] ??= {})[row.location_name] = row.grand_total;
    const drawn = await chartNumbers(page);
    // Every bar the API has, with its value; a month without a location's orders is a bar of 0.
    for (const [month, byLocation] of Object.entries(expected))
      for (const [location, total] of Object.entries(byLocation))
        expect(drawn[month]?.[location], `${month} ${location}`).toBe(total);
    expect(Object.keys(drawn).sort()).toEqual(Object.keys(expected).sort());
    await expect(page.locator('#report-chart-title').textContent()).resolves.toBe('Grand total by location per month');
    const canvas = screen.locator('canvas');
    expect(await canvas.getAttribute('role')).toBe('img');
    expect(await canvas.getAttribute('aria-label')).toMatch(/^Grand total by location per month/);
    // The table opens under the chart for anyone.
    await screen.getByText('Chart data').click();
    await page.locator('#report-chart-data').waitFor({ state: 'visible' });

    // The table: the API's rows and its totals.
    const table = screen.locator('#report-table');
    await eventually(() => table.locator('tbody tr').count()).toBe(api.rows.length);
    // 12,005 + 24,010 + 6,002.50 + 8,403.50 + 1,200.50, over every row.
    expect(await table.locator('tfoot tr > *').allTextContents()).toEqual(['Total', '5', '51,621.50']);
    expect(api.totals).toEqual({ order_count: 5, grand_total: 51621.5 });

    // Sorting by grand total, from the largest; the service sorts, the table shows it.
    await table.getByRole('button', { name: 'Grand total' }).click();
    await eventually(() => table.locator('th[aria-sort]').getAttribute('aria-sort')).toBe('descending');
    const sorted = await table.locator('tbody tr td:last-child').allTextContents();
    const values = sorted.map((text) => Number(text.replace(/,/g, '')));
    expect(values).toEqual([...values].sort((a, b) => b - a));

    // Top products when not by month.
    await screen.getByLabel('Group by').selectOption({ label: 'Product' });
    await screen.getByLabel('Then by').selectOption({ label: 'Nothing' });
    await screen.getByRole('checkbox', { name: 'Order totals' }).uncheck();
    await screen.getByRole('checkbox', { name: 'Line amounts' }).check();
    await screen.getByRole('checkbox', { name: 'Pending' }).check();
    await screen.getByRole('button', { name: 'Show report' }).click();
    await eventually(() => page.locator('#report-chart-title').textContent()).toBe('Top 1 by subtotal');
    const byProduct = (
      await suite.server.http
        .get('/reports/sales')
        .query({ group_by: 'product', metrics: 'order_count,pending_quantity,subtotal' })
        .expect(200)
    ).body.data;
    expect(await chartNumbers(page)).toEqual({ 'Urea 46% N': { Subtotal: byProduct.rows[0].subtotal } });
    expect(byProduct.rows[0].pending_quantity).toBe(43);

    // Download CSV: the service's CSV of the same choice.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      screen.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('sales-report.csv');
    const text = await readFile(await download.path(), 'utf8');
    const csv = await suite.server.http
      .get('/reports/sales')
      .query({ group_by: 'product', metrics: 'order_count,pending_quantity,subtotal', format: 'csv' })
      .expect(200);
    expect(text).toBe(csv.text);

    await expectAccessible(page);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('nothing scrolls sideways at 390 px, chart and table included; axe finds nothing there either', async () => {
    const { context, page, problems } = await openAs(['sales_orders.read', 'reports.read'], 390);
    await eventually(() => page.locator('#report-chart-data tbody tr').count()).toBe(3);
    expect(await scrollsSideways(page)).toEqual([]);
    await expectAccessible(page);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('a caller without reports.read gets no Reports screen', async () => {
    const { context, page } = await openAs(['sales_orders.read']);
    await page.getByRole('heading', { name: 'Orders' }).waitFor();
    await eventually(() => page.locator('#reports').count()).toBe(0);
    await context.close();
  });
});
