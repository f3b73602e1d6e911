import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';

import { describeInChromium, useChromiumPage } from './support/chromium-page.js';
import { orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';

/**
 * The order entry page with big orders and a quick clerk, in Chromium against the real server:
 * a 500-line order shows its first screen within 1 s and all its lines within 2 s of the click,
 * and typing in line 500 makes no long task above 200 ms (measured in the page with
 * `performance` marks and the Long Tasks API; the test fails past 3x these figures, as a loaded
 * 2-core machine needs); a 30-line order edited key by key spends at most 60 requests under the
 * default rate limit, none refused. The master data is the demo's size: 260 products, 320
 * customers.
 */
const eventually = <T>(read: () => T | Promise<T>, timeout = 30_000) => expect.poll(read, { timeout, interval: 100 });

const FIRST_SCREEN_MS = 1_000;
const ALL_LINES_MS = 2_000;
const LONG_TASK_MS = 200;
/** A loaded 2-core machine's allowance over the figures above. */
const SLACK = 3;

/** The demo's master data sizes: the fixtures' three products and customers, and the rest. */
const addDemoSizedMasterData = async (suite: ReturnType<typeof useServerWithFixtures>) => {
  const prisma = suite.server.database.prisma;
  await prisma.product.createMany({
    data: Array.from({ length: 257 }, (_, i) => ({
      code: `PX${String(i).padStart(3, '0')}`,
      name: `Product ${String(i).padStart(3, '0')} ${['Granules', 'EC', 'WP', 'Seed'][i % 4]}`,
      requiresLicence: i % 5 === 0,
    })),
  });
  await prisma.customer.createMany({
    data: Array.from({ length: 317 }, (_, i) => ({
      code: `CX${String(i).padStart(3, '0')}`,
      name: `Customer ${String(i).padStart(3, '0')}`,
    })),
  });
  return prisma.product.findMany({ where: { active: true }, orderBy: { id: 'asc' } });
};

/** The quantities each licence check of `page` asked about, once answered, from now on. */
const licenceChecksAnswered = (page: Page): number[][] => {
  const answered: number[][] = [];
  page.on('requestfinished', (request) => {
    if (!request.url().includes('/validate-licence')) return;
    const question = request.postDataJSON() as { sales_order_details: { quantity: number }[] };
    answered.push(question.sales_order_details.map((detail) => detail.quantity));
  });
  return answered;
};

/** Finds the order in the list (the page loaded, the list searched), ready for the click on its number. */
const findInList = async (page: Page, number: string) => {
  await page.getByLabel('Search orders').fill(number);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.getByRole('button', { name: number, exact: true }).waitFor();
};

/**
 * In the page: marks the click on the order's number, then watches every frame for the first
 * screen (the heading names the order, line 1 shows its product and quantity) and for all lines
 * (line `count` shows its quantity), marking each the frame it is first seen. Long tasks are
 * collected from here on. Written as a string: the test's TypeScript has no DOM types.
 */
const clickAndWatch = (page: Page, number: string, first: { product: string; quantity: string }, count: number) =>
  page.evaluate(`(() => {
    const lineOf = (n) => [...document.querySelectorAll('fieldset')].find((set) => set.querySelector('legend')?.textContent === 'Line ' + n);
    const control = (set, name) => set && [...set.querySelectorAll('label')].find((label) => label.textContent === name)?.control;
    const shown = (control) => control instanceof HTMLSelectElement ? control.selectedOptions[0]?.text : control?.value;
    window.__longTasks = [];
    new PerformanceObserver((list) => window.__longTasks.push(...list.getEntries().map((entry) => ({ start: entry.startTime, duration: entry.duration })))).observe({ type: 'longtask' });
    const watch = () => {
      if (!performance.getEntriesByName('test:first-screen').length) {
        const line = lineOf(1);
        if (document.getElementById('order-heading')?.textContent.includes(${JSON.stringify(number)}) &&
            shown(control(line, 'Product')) === ${JSON.stringify(first.product)} && shown(control(line, 'Quantity')) === ${JSON.stringify(first.quantity)})
          performance.mark('test:first-screen');
      }
      if (shown(control(lineOf(${count}), 'Quantity')) === ${JSON.stringify(String(count))}) {
        performance.mark('test:all-lines');
        return;
      }
      requestAnimationFrame(watch);
    };
    const button = [...document.querySelectorAll('button')].find((b) => b.textContent === ${JSON.stringify(number)});
    performance.mark('test:click');
    button.click();
    requestAnimationFrame(watch);
  })()`);

const sinceClick = (page: Page, mark: string) =>
  page.evaluate<number | null>(`(() => {
    const at = performance.getEntriesByName(${JSON.stringify(mark)})[0];
    return at ? at.startTime - performance.getEntriesByName('test:click')[0].startTime : null;
  })()`);

/** A server with the page and the demo's sizes of master data, and a browser: for a describe block. */
const useDemoSized = (env: Record<string, string> = {}) => {
  const suite = useServerWithFixtures({ ORDER_ENTRY_PAGE: 'true', ...env });
  const chromium = useChromiumPage(suite);
  const state: { products: { id: number; name: string; requiresLicence: boolean }[] } = { products: [] };
  beforeAll(async () => {
    state.products = await addDemoSizedMasterData(suite);
  });
  /** A context signed in as a clerk, at a laptop's size. */
  const signedIn = async () =>
    (await chromium.signedIn({ context: { viewport: { width: 1280, height: 900 } } })).context;
  return { suite, state, chromium, signedIn };
};

describeInChromium('order entry page in Chromium: a 500-line order (needs Chromium)', () => {
  const { suite, state, chromium, signedIn } = useDemoSized();

  it('shows its first screen within 1 s and all lines within 2 s of the click; typing in line 500 makes no long task above 200 ms (3x allowed)', async () => {
    const details = Array.from({ length: 500 }, (_, index) => ({
      product_id: state.products[index % state.products.length]!.id,
      quantity: index + 1,
      rate: 10,
    }));
    const { order_number: number } = (
      await suite.server.http
        .post('/sales-orders')
        .send(orderBody(suite.fixtures, { details, customer_reference: 'PO-500-FAST' }))
        .expect(201)
    ).body.data as { order_number: string };

    const context = await signedIn();
    const { page, problems } = await chromium.openPage(context, { untilLoaded: false });
    await eventually(() => page.locator('#order form button.primary').isDisabled()).toBe(false);
    await findInList(page, number);

    await clickAndWatch(page, number, { product: state.products[0]!.name, quantity: '1' }, 500);
    await eventually(() => sinceClick(page, 'test:all-lines'), 120_000).not.toBeNull();
    const firstScreen = (await sinceClick(page, 'test:first-screen'))!;
    const allLines = (await sinceClick(page, 'test:all-lines'))!;
    const opening = await page.evaluate<number[]>(`window.__longTasks.map((task) => Math.round(task.duration))`);

    // Line 500: the clerk changes its quantity and rate key by key.
    const licenceAnswered = licenceChecksAnswered(page);
    await page.evaluate(`window.__longTasks = []`);
    const last = page.getByRole('group', { name: 'Line 500', exact: true });
    await last.getByLabel('Quantity').click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('512.5', { delay: 120 });
    await last.getByLabel('Rate').click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('11.25', { delay: 120 });
    // The totals follow: the first 499 lines at 10 each, line 500 now 512.5 x 11.25 (5,765.63), carriage 350.
    const subtotal = (499 * 500 * 10) / 2 + 5765.63;
    await eventually(() => page.locator('#grand-total').textContent()).toBe(
      (subtotal + 350).toLocaleString('en-US', { minimumFractionDigits: 2 }),
    );
    // The licence check the quantity asked for has been answered (it is asked after a pause in
    // typing: network idle could come before it).
    await eventually(() => licenceAnswered.some((quantities) => quantities.includes(512.5))).toBe(true);
    const typing = await page.evaluate<number[]>(`window.__longTasks.map((task) => Math.round(task.duration))`);

    console.info(
      `500-line order: first screen ${Math.round(firstScreen)} ms, all lines ${Math.round(allLines)} ms after the click; ` +
        `long tasks while opening ${JSON.stringify(opening)} ms, while typing in line 500 ${JSON.stringify(typing)} ms`,
    );
    expect(firstScreen).toBeLessThanOrEqual(FIRST_SCREEN_MS * SLACK);
    expect(allLines).toBeLessThanOrEqual(ALL_LINES_MS * SLACK);
    expect(Math.max(0, ...typing)).toBeLessThanOrEqual(LONG_TASK_MS * SLACK);
    expect(problems).toEqual([]);
    await context.close();
  }, 240_000);
});

describeInChromium(
  'order entry page in Chromium: a request budget under the default rate limit (needs Chromium)',
  () => {
    // The service's default: 100 requests a minute from one address (the test server raises it).
    const { suite, state, chromium, signedIn } = useDemoSized({ RATE_LIMIT_PER_MINUTE: '100' });

    it('a 30-line order edited key by key, a quarter second between fields: at most 60 requests, none refused', async () => {
      // Every other line a licensed product: the licence warnings matter while the quantities change.
      const licensed = suite.fixtures.products.product.id;
      const unlicensed = state.products.filter((product) => !product.requiresLicence);
      const details = Array.from({ length: 30 }, (_, index) => ({
        product_id: index % 2 === 0 ? licensed : unlicensed[index]!.id,
        quantity: 1,
        rate: 1,
      }));
      const { order_number: number } = (
        await suite.server.http
          .post('/sales-orders')
          .send(orderBody(suite.fixtures, { details, customer_reference: 'PO-30-QUICK', other_charges: [] }))
          .expect(201)
      ).body.data as { order_number: string };

      const context = await signedIn();
      const requests: string[] = [];
      const refused: string[] = [];
      const api = new URL(suite.server.api).pathname;
      const { page, problems } = await chromium.openPage(context, {
        untilLoaded: false,
        beforeLoad: (loading) => {
          loading.on('request', (request) => {
            const url = new URL(request.url());
            if (url.pathname.startsWith(api)) requests.push(`${request.method()} ${url.pathname.slice(api.length)}`);
          });
          loading.on('response', (response) => {
            if (response.status() === 429) refused.push(response.url());
          });
        },
      });
      await eventually(() => page.locator('#order form button.primary').isDisabled()).toBe(false);
      await findInList(page, number);
      await page.getByRole('button', { name: number, exact: true }).click();
      await eventually(() => page.locator('#list-status').textContent()).toBe(`Opened ${number}.`);

      const licenceAnswered = licenceChecksAnswered(page);

      // The clerk's pace between fields: the scenario, not a wait for the page.
      const pause = () => page.waitForTimeout(250);
      for (let n = 1; n <= 30; n += 1) {
        const line = page.getByRole('group', { name: `Line ${n}`, exact: true });
        await line.getByLabel('Quantity').click();
        await page.keyboard.press('ControlOrMeta+A');
        await page.keyboard.type(String(100 + n), { delay: 60 });
        await pause();
        await line.getByLabel('Rate').click();
        await page.keyboard.press('ControlOrMeta+A');
        await page.keyboard.type('12.75', { delay: 60 });
        await pause();
      }
      // The licence check of the last quantities has been answered.
      const lastQuantities = JSON.stringify(Array.from({ length: 30 }, (_, index) => 101 + index));
      await eventually(() =>
        licenceAnswered.some((quantities) => JSON.stringify([...quantities].sort((a, b) => a - b)) === lastQuantities),
      ).toBe(true);
      // A later marker: a search the clerk starts now. Whatever the edits set off was sent before it.
      const marker = `marker-${Date.now()}`;
      const sentBefore = new Promise<number>((resolve) => {
        page.on('request', (request) => {
          // The listener that records requests was added first: the marker's is the last one recorded.
          if (request.url().includes(marker)) resolve(requests.length - 1);
        });
      });
      await page.getByLabel('Search orders').fill(marker);
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      const edits = requests.slice(0, await sentBefore);
      console.info(`30 lines edited key by key: ${edits.length} requests, ${refused.length} refused`, edits);
      expect(refused).toEqual([]);
      expect(edits.length).toBeLessThanOrEqual(60);
      // Sum over n of (100 + n) x 12.75 = (3000 + 465) x 12.75.
      await eventually(() => page.locator('#grand-total').textContent()).toBe('44,178.75');
      // The licensed lines' warnings follow the last quantities (the product has no licence).
      await eventually(() => page.locator('fieldset .warnings li').count()).toBe(15);
      expect(problems).toEqual([]);
      await context.close();
    }, 240_000);

    it("after a 429 the page sends nothing more until the answer's Retry-After has passed", async () => {
      const context = await signedIn();
      const { page } = await chromium.openPage(context, { untilLoaded: false });
      await eventually(() => page.locator('#order form button.primary').isDisabled()).toBe(false);
      // The first licence check is refused as the rate limit refuses, asking for 3 seconds.
      let refusedAt: number | undefined;
      const sentAfter: number[] = [];
      await page.route('**/sales-orders/validate-licence', async (route) => {
        if (refusedAt === undefined) {
          refusedAt = Date.now();
          await route.fulfill({
            status: 429,
            headers: { 'content-type': 'application/json', 'retry-after': '3' },
            body: JSON.stringify({
              error: {
                code: 429,
                message: 'Too many requests',
                details: [{ path: '', message: 'Too many requests', code: 'rate_limited' }],
              },
            }),
          });
          return;
        }
        sentAfter.push(Date.now());
        await route.continue();
      });
      const line = page.getByRole('group', { name: 'Line 1', exact: true });
      const product = line.getByLabel('Product', { exact: true });
      await product.fill('Cype');
      await page.getByRole('listbox', { name: 'Products' }).getByRole('option', { name: 'Cypermethrin 10 EC' }).click();
      await line.getByLabel('Quantity').fill('5');
      await eventually(() => refusedAt).toBeDefined();
      // The clerk goes on typing: the next check is due half a second later, but waits for the gate.
      await line.getByLabel('Quantity').fill('6');
      await eventually(() => page.locator('#notice').textContent()).toMatch(/waiting \d s before the next/);
      await eventually(() => sentAfter.length, 15_000).toBeGreaterThan(0);
      expect(sentAfter[0]! - refusedAt!).toBeGreaterThanOrEqual(2_900);
      // Then the warnings come as usual (the product has no licence).
      await eventually(() => line.locator('.warnings li').count()).toBe(1);
      await context.close();
    });
  },
);
