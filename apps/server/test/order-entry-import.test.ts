import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, expect, it } from 'vitest';

import { CSV_COLUMNS } from '../src/imports/import-file.js';
import { describeInChromium, expectAccessible, useChromiumPage } from './support/chromium-page.js';
import { type Fixtures, importLine, ORDER_DATE } from './support/fixtures.js';
import { orderWriteGate } from './support/order-write-gate.js';
import { useServerWithFixtures } from './support/test-server.js';

/**
 * The order entry page's Import screen in a real Chromium against the real server, its job
 * queue and its database: a file chosen and sent as it is (POST /imports with the file's media
 * type, as `pnpm import` sends it), the progress bar and counts from GET /imports/{id} as the
 * import runs, Cancel import, the results downloaded as JSON Lines and CSV, and the screen left
 * out for a caller without `sales_orders.import`.
 */
const eventually = <T>(read: () => T | Promise<T>, timeout = 60_000) => expect.poll(read, { timeout, interval: 100 });

const HEADER = 'order_ref,customer_id,location_id,sales_order_date,product_id,quantity,rate,customer_reference';

/** One CSV row of a one-line order (`quantity` may be made wrong). */
const row = (f: Fixtures, ref: string, quantity: string | number = 2) =>
  [ref, f.customers.customer.id, f.locations.dhaka.id, ORDER_DATE, f.products.otherProduct.id, quantity, 100, ref].join(
    ',',
  );

describeInChromium(
  "order entry page: the Import screen in Chromium (needs Chromium: CHROMIUM_PATH or Debian's chromium package)",
  () => {
    // Small chunks: the bar moves in small steps. The longer file's import waits on a lock this
    // test holds (orderWriteGate) for as long as a page step takes on a loaded machine, within the
    // service's 30 s transaction bound.
    const suite = useServerWithFixtures({
      ORDER_ENTRY_PAGE: 'true',
      IMPORT_CHUNK_SIZE: '5',
      DATABASE_LOCK_TIMEOUT_MS: '25000',
      DATABASE_STATEMENT_TIMEOUT_MS: '28000',
    });
    const chromium = useChromiumPage(suite);
    const folder = mkdtempSync(path.join(tmpdir(), 'order-entry-import-'));

    afterAll(() => rmSync(folder, { recursive: true, force: true }));

    const fileOf = (name: string, text: string) => {
      const file = path.join(folder, name);
      writeFileSync(file, text);
      return file;
    };

    /** A browser signed in with a host session holding `permissions`. */
    const signedIn = async (permissions = ['*']): Promise<BrowserContext> =>
      (
        await chromium.signedIn({
          session: { userId: 'importer-1', permissions },
          context: { viewport: { width: 1280, height: 1000 } },
        })
      ).context;

    /** The page loaded (the list answered), with its CSP violations and script errors collected. */
    const openPage = (context: BrowserContext) => chromium.openPage(context);

    const bar = (page: Page) => page.getByRole('progressbar', { name: 'Progress' });
    const status = (page: Page) => page.locator('#import-status');
    const counts = (page: Page) => page.locator('#import-counts');
    /** Where the bar stands: its value and its max (a `<progress>`; this project's TypeScript has no DOM types). */
    const reading = (page: Page) =>
      bar(page).evaluate((element) => {
        const progress = element as unknown as { value: number; max: number };
        return { value: progress.value, max: progress.max };
      });

    /** The newest import, as stored. */
    const latestImport = () => suite.server.database.prisma.import.findFirstOrThrow({ orderBy: { id: 'desc' } });

    /** The Content-Type of each upload the page sends from now on. */
    const importTypesSent = (page: Page) => {
      const types: (string | undefined)[] = [];
      page.on('request', (request) => {
        if (request.method() === 'POST' && new URL(request.url()).pathname.endsWith('/imports'))
          types.push(request.headers()['content-type']);
      });
      return types;
    };

    const choose = async (page: Page, file: string) => {
      await page.getByLabel('File of orders').setInputFiles(file);
      await page.getByRole('button', { name: 'Import file' }).click();
    };

    /** Clicks a download button; the saved file's suggested name and text. */
    const download = async (page: Page, name: string) => {
      const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name }).click()]);
      return { name: file.suggestedFilename(), text: readFileSync(await file.path(), 'utf8') };
    };

    it('a CSV with one bad row: sent as it is, the bar reaches the end, the counts, and both result files', async () => {
      const f = suite.fixtures;
      const csv = `${[HEADER, row(f, 'web-1', 1), row(f, 'web-1', 3), row(f, 'web-2'), row(f, 'web-3', 'ten'), row(f, 'web-4'), row(f, 'web-5')].join('\n')}\n`;
      const context = await signedIn();
      const { page, problems } = await openPage(context);
      await page.getByRole('heading', { name: 'Import orders' }).waitFor({ state: 'visible' });
      const sent = importTypesSent(page);

      await choose(page, fileOf('orders.csv', csv));
      // Five orders (web-1 has two rows), one with a quantity that is not a number.
      await eventually(() => reading(page)).toEqual({ value: 5, max: 5 });
      await eventually(() => counts(page).textContent()).toBe('5 of 5 orders done: 4 created, 1 failed.');
      await eventually(() => status(page).textContent()).toBe(
        'Import finished: 4 orders created, 1 not created. The list below says why.',
      );
      // An import that ran to its end is no alarm; the order it could not create is listed, with why.
      expect(await status(page).getAttribute('class')).not.toContain('problem');
      const failed = page.getByRole('table', { name: 'Orders not created' });
      await eventually(() => failed.locator('tbody tr').count()).toBe(1);
      expect(await failed.locator('tbody tr td').allTextContents()).toEqual([
        'web-3',
        '5',
        expect.stringMatching(/^Line 5, column quantity: \S/),
      ]);
      // The file went as it is, as text/csv: its rows are staged cell for cell, each on its line.
      expect(sent).toEqual(['text/csv']);
      const stored = await latestImport();
      const staged = await suite.server.database.prisma.importFileRow.findMany({
        where: { importId: stored.id },
        orderBy: { seq: 'asc' },
      });
      expect(staged.map((fileRow) => [fileRow.line, (JSON.parse(fileRow.content) as string[]).join(',')])).toEqual(
        csv
          .trimEnd()
          .split('\n')
          .slice(1)
          .map((line, index) => [index + 2, line]),
      );
      const id = stored.id;
      expect(await page.getByRole('button', { name: 'Cancel import' }).isHidden()).toBe(true);
      expect(
        await suite.server.database.prisma.salesOrder.count({ where: { customerReference: { startsWith: 'web-' } } }),
      ).toBe(4);

      const jsonLines = await download(page, 'Download results (JSON Lines)');
      expect(jsonLines.name).toBe(`import-${id}-results.jsonl`);
      const results = jsonLines.text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { order_ref: string; status: string; lines: number[]; errors: unknown[] });
      expect(results.map((result) => [result.order_ref, result.status, result.lines])).toEqual([
        ['web-1', 'created', [2, 3]],
        ['web-2', 'created', [4]],
        ['web-3', 'failed', [5]],
        ['web-4', 'created', [6]],
        ['web-5', 'created', [7]],
      ]);
      expect(results[2]!.errors).toEqual([
        { path: 'details.0.quantity', message: 'line 5, column quantity: "ten" is not a number', code: 'invalid_cell' },
      ]);

      const csvResults = await download(page, 'Download results (CSV)');
      expect(csvResults.name).toBe(`import-${id}-results.csv`);
      const csvLines = csvResults.text.trimEnd().split('\n');
      expect(csvLines[0]).toBe('order_ref,lines,status,sales_order_id,order_number,errors');
      expect(csvLines).toHaveLength(6);
      expect(csvLines[1]).toMatch(/^web-1,2 3,created,\d+,DHK-2026-\d+,$/);
      expect(csvLines[3]).toBe(
        'web-3,5,failed,,,"details.0.quantity: line 5, column quantity: ""ten"" is not a number [invalid_cell]"',
      );

      // The list shows what the import made.
      await eventually(() => page.getByRole('table', { name: 'Orders', exact: true }).locator('tbody tr').count()).toBe(
        4,
      );
      await expectAccessible(page, 'a finished import');
      expect(problems).toEqual([]);
      await context.close();
    });

    it('the template beside the file picker lists every column, and imported as it is creates its example order', async () => {
      const context = await signedIn();
      const { page, problems } = await openPage(context);
      await page.getByText('Columns of a CSV file').click();
      expect(await page.locator('.import-columns p').textContent()).toBe(CSV_COLUMNS.join(', '));
      const template = await download(page, 'Download a CSV template');
      expect(template.name).toBe('orders-template.csv');
      const [header, example, ...rest] = template.text.split('\r\n');
      expect(header).toBe(CSV_COLUMNS.join(','));
      expect(rest).toEqual(['']);
      expect(example!.split(',')).toHaveLength(CSV_COLUMNS.length);

      // The example is an order the service takes: the clerk can start from it.
      await choose(page, fileOf('template.csv', template.text));
      await eventually(() => status(page).textContent()).toBe('Import finished: 1 order created.');
      await expectAccessible(page, 'the columns open');
      expect(problems).toEqual([]);
      await context.close();
    });

    it('a longer file: the bar moves as it runs, a reload picks it up again, and Cancel import stops it', async () => {
      const f = suite.fixtures;
      const ORDERS = 10_000;
      const csv = [HEADER, ...Array.from({ length: ORDERS }, (_, index) => row(f, `long-${index}`))].join('\n');
      const gate = await orderWriteGate(suite.server.database.pool.options.connectionString);
      try {
        const context = await signedIn();
        let { page, problems } = await openPage(context);
        /** Lets the import run until the page's bar passes `after` (short of the end), then shuts the gate. */
        const moves = async (after: number) => {
          await gate.open();
          await eventually(async () => {
            const { value, max } = await reading(page);
            return max === ORDERS && value > after && value < ORDERS;
          }).toBe(true);
          await gate.shut();
          return (await reading(page)).value;
        };
        // Sent with the gate shut: the import starts and waits at its first chunk.
        await gate.shut();
        await choose(page, fileOf('long.csv', csv));

        // The bar at two places short of the end: it follows the import, not only its end.
        const first = await moves(0);
        await moves(first);
        expect(await status(page).textContent()).toBe('Importing long.csv…');
        expect(await counts(page).textContent()).toMatch(/^[\d,]+ of 10,000 orders done: [\d,]+ created, 0 failed\./);
        await expectAccessible(page, 'an import running');
        expect(problems).toEqual([]);

        // A new page finds the caller's import still running and follows it.
        await page.close();
        ({ page, problems } = await openPage(context));
        await eventually(() => status(page).textContent()).toMatch(/^Import \d+ is still running\.$/);
        await moves((await reading(page)).value);

        // Cancelled while the gate is shut, so the import cannot have ended first.
        await page.getByRole('button', { name: 'Cancel import' }).click();
        await eventually(async () => (await latestImport()).cancelRequested).toBe(true);
        await gate.open();
        await eventually(() => status(page).textContent()).toMatch(
          /^Import cancelled: [\d,]+ orders created before it stopped\.$/,
        );
        const cancelled = await latestImport();
        expect(cancelled.state).toBe('cancelled');
        expect(cancelled.ordersCreated).toBeLessThan(ORDERS);
        expect(
          await suite.server.database.prisma.salesOrder.count({
            where: { customerReference: { startsWith: 'long-' } },
          }),
        ).toBe(cancelled.ordersCreated);
        const made = cancelled.ordersCreated.toLocaleString('en-US');
        expect(await counts(page).textContent()).toBe(`${made} of 10,000 orders done: ${made} created, 0 failed.`);
        expect(await page.getByRole('button', { name: 'Download results (CSV)' }).isVisible()).toBe(true);
        expect(problems).toEqual([]);
        await context.close();
      } finally {
        await gate.close();
      }
    }, 240_000);

    it('JSON Lines goes as application/x-ndjson; a file of another kind or an empty one is refused in words', async () => {
      const f = suite.fixtures;
      const context = await signedIn();
      const { page, problems } = await openPage(context);
      const types = importTypesSent(page);

      await choose(page, fileOf('notes.txt', 'not orders'));
      const field = page.getByLabel('File of orders');
      await eventually(() => field.getAttribute('aria-invalid')).toBe('true');
      expect(await page.locator(`[id="${await field.getAttribute('aria-describedby')}"]`).textContent()).toBe(
        'Choose a CSV file (.csv) or a JSON Lines file (.jsonl)',
      );

      await choose(page, fileOf('empty.csv', ''));
      await eventually(() => status(page).textContent()).toBe(
        'That file is not a CSV or JSON Lines file of orders, or it is empty',
      );
      expect(await field.getAttribute('aria-invalid')).toBeNull();

      const body = (ref: string) => importLine(f, ref);
      await choose(page, fileOf('orders.jsonl', `${body('jl-1')}\n${body('jl-2')}\n`));
      await eventually(() => status(page).textContent()).toBe('Import finished: 2 orders created.');
      expect(types).toEqual(['text/csv', 'application/x-ndjson']);
      await expectAccessible(page, 'a refused file, then a finished import');
      expect(problems).toEqual([]);
      await context.close();
    });

    it('a caller without sales_orders.import gets no Import screen', async () => {
      const context = await signedIn(['sales_orders.read', 'sales_orders.create']);
      const { page, problems } = await openPage(context);
      await page.getByRole('heading', { name: 'New order' }).waitFor({ state: 'visible' });
      expect(await page.locator('#import').count()).toBe(0);
      expect(await page.getByRole('heading', { name: 'Import orders' }).count()).toBe(0);
      await expectAccessible(page);
      expect(problems).toEqual([]);
      await context.close();
    });
  },
);
