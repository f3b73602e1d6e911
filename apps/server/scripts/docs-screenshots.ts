/**
 * The order entry page's screenshots in docs/, made from the demo data: the built service on a
 * fresh embedded database (which loads the demo data and keeps a demo session), Debian's Chromium
 * signing in through the session's link, and a clerk's steps on the page.
 *
 *   pnpm build && pnpm --filter @sales-order/server docs:screenshots [folder]   (default: docs/)
 *
 * Writes order-entry.png (a new order: three lines, live totals, a licence warning),
 * order-entry-1280.png, -1024.png and -390.png (the saved order with its history, the list beside
 * or under it) and order-entry-import.png (the Import screen after a CSV of five orders, one with a
 * quantity that is not a number). Needs Chromium (/usr/bin/chromium or CHROMIUM_PATH).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

import type { Page } from 'playwright-core';

import { chromiumPath, launchChromium } from '../test/support/chromium.js';

const serverRoot = path.resolve(import.meta.dirname, '..');
const out = path.resolve(process.env.INIT_CWD ?? process.cwd(), process.argv[2] ?? path.join(serverRoot, '../../docs'));

/** The demo's showcase products (src/demo/demo-data.ts): one needs a licence that was never issued. */
const LINES = [
  { product: 'Cypermethrin 10 EC (Ripcord)', quantity: '10', rate: '455.5' },
  { product: 'Fipronil 3 GR (Regent)', quantity: '40', rate: '180' },
  { product: 'Urea 46% N (Granular)', quantity: '2.5', rate: '1200' },
];

/** Starts the built service on an empty embedded database; resolves with its sign-in link. */
const startService = (dataDir: string): Promise<{ child: ChildProcess; signIn: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['dist/main.js'], {
      cwd: serverRoot,
      env: {
        ...process.env,
        DATABASE_URL: '',
        DATA_DIR: dataDir,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        ORDER_ENTRY_PAGE: 'true',
        ORDER_ENTRY_SIGN_IN: 'true',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.once('exit', (code) => reject(new Error(`the service exited (${code}) before it printed its sign-in link`)));
    createInterface({ input: child.stderr }).on('line', (line) => {
      const link = /(http:\/\/\S+\/order-entry\/sign-in\?session=\S+)/.exec(line)?.[1];
      if (link) resolve({ child, signIn: link });
    });
  });

const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

/** Types the start of a name into a picker's field and clicks its option. */
const choose = async (page: Page, field: ReturnType<Page['getByLabel']>, list: string, name: string) => {
  await field.fill(name.slice(0, 5));
  await page.getByRole('listbox', { name: list }).getByRole('option', { name, exact: true }).click();
};

const main = async () => {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error('no Chromium at /usr/bin/chromium (apt-get install chromium) or CHROMIUM_PATH');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'order-entry-screenshots-'));
  const { child, signIn } = await startService(dataDir);
  const browser = await launchChromium(executablePath);
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(signIn);
    const save = page.getByRole('button', { name: 'Save' });
    await until('the form', async () => !(await save.isDisabled()));

    // A new order as a clerk types it.
    const customer = page.getByLabel('Customer', { exact: true });
    await customer.fill('a');
    await page.getByRole('listbox', { name: 'Customers' }).getByRole('option').first().click();
    await page.getByLabel('Location', { exact: true }).selectOption({ index: 1 });
    await page.getByLabel('Customer reference').fill('PO-2291');
    for (const [index, line] of LINES.entries()) {
      if (index > 0) await page.getByRole('button', { name: 'Add line' }).click();
      const group = page.getByRole('group', { name: `Line ${index + 1}`, exact: true });
      await choose(page, group.getByLabel('Product', { exact: true }), 'Products', line.product);
      await group.getByLabel('Quantity').fill(line.quantity);
      await group.getByLabel('Rate').fill(line.rate);
    }
    await page.getByRole('button', { name: 'Add charge' }).click();
    await page.getByLabel('Charge description').fill('Carriage');
    await page.getByLabel('Charge amount').fill('350');
    await page.getByLabel('Remarks').fill('Deliver to the Bogura warehouse');
    await until('the licence warning', async () => (await page.locator('fieldset .warnings li').count()) > 0);
    await page.screenshot({ path: path.join(out, 'order-entry.png'), fullPage: true });

    // Saved: the order with its history, at three widths.
    await save.click();
    await until('the save', async () => /^Saved as order/.test((await page.locator('#notice').textContent()) ?? ''));
    await until('the history', async () => (await page.locator('ol.history > li').count()) > 0);
    for (const width of [1280, 1024, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: path.join(out, `order-entry-${width}.png`), fullPage: true });
    }

    // The Import screen after a CSV of five orders, one with a quantity that is not a number.
    await page.setViewportSize({ width: 1280, height: 900 });
    const customerId =
      await page.evaluate<string>(`fetch('../api/sales-orders/dropdown-options/customers?limit=1', { credentials: 'include' })
      .then((r) => r.json()).then((body) => /value="(\\d+)"/.exec(body.data.html)[1])`);
    const csv = [
      'order_ref,customer_id,location_id,sales_order_date,product_id,quantity,rate,customer_reference',
      ...[1, 2, 3, 4, 5].map((n) =>
        [
          `IMP-${n}`,
          customerId,
          1,
          new Date().toISOString().slice(0, 10),
          6,
          n === 4 ? 'twelve' : 10 * n,
          1200,
          `PO-IMP-${n}`,
        ].join(','),
      ),
    ].join('\n');
    const file = path.join(dataDir, 'orders.csv');
    writeFileSync(file, `${csv}\n`);
    await page.getByLabel('File of orders').setInputFiles(file);
    await page.getByRole('button', { name: 'Import file' }).click();
    await until('the import', async () =>
      /^Import finished/.test((await page.locator('#import-status').textContent()) ?? ''),
    );
    await page.screenshot({ path: path.join(out, 'order-entry-import.png'), fullPage: true });
    await context.close();
    console.info(`screenshots written to ${out}`);
  } finally {
    await browser.close();
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dataDir, { recursive: true, force: true });
  }
};

await main();
