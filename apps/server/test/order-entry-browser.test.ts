import type { Browser, BrowserContext, Locator, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { chromiumPath, launchChromium } from './support/chromium.js';
import { createSession } from './support/credentials.js';
import { ORDER_DATE, orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';

/**
 * The reference order entry page (apps/order-entry) in a real Chromium against the real server
 * on its database: the SDK in a browser with the host's session cookie, the dropdowns' HTML in
 * the form, live totals and licence warnings, Save with an Idempotency-Key, If-Match edits,
 * confirm and cancel, and an expired session. Controls are found by their visible labels.
 */
/** Playwright's locator assertions belong to its test runner; here vitest polls the page instead. */
const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 15_000, interval: 100 });

/** The text of the element that describes a control (its error slot, by aria-describedby). */
const descriptionOf = async (control: Locator) =>
  control
    .page()
    .locator(`[id="${(await control.getAttribute('aria-describedby')) ?? ''}"]`)
    .textContent();

const executablePath = chromiumPath();
if (!executablePath) {
  console.warn(
    'order entry browser tests skipped: no Chromium at /usr/bin/chromium (apt-get install chromium) or CHROMIUM_PATH',
  );
}

describe.skipIf(!executablePath)(
  "order entry page in Chromium (needs Chromium: CHROMIUM_PATH or Debian's chromium package)",
  () => {
    const suite = useServerWithFixtures({ ORDER_ENTRY_PAGE: 'true', ORDER_ENTRY_SIGN_IN: 'true' });
    let browser: Browser;
    const ids = { officer: 0, port: 0 };

    beforeAll(async () => {
      browser = await launchChromium(executablePath!);
      const prisma = suite.server.database.prisma;
      ids.officer = (await prisma.fieldOfficer.create({ data: { code: 'FO-1', name: 'Sharmin Sultana' } })).id;
      ids.port = (await prisma.port.create({ data: { code: 'PT-1', name: 'Chattogram Port' } })).id;
    });
    afterAll(() => browser?.close());

    /** A browser context holding a fresh host session cookie for the server, as the host's login leaves it. */
    const signedIn = async (): Promise<{ context: BrowserContext; token: string }> => {
      const { token } = await createSession(suite.server.database.prisma, { userId: 'clerk-1' });
      const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
      await context.addCookies([
        { name: 'erp_session', value: token, url: suite.server.origin, httpOnly: true, sameSite: 'Lax' },
      ]);
      return { context, token };
    };

    /** The page, loaded with its selects filled and the first line in place. */
    const openPage = async (context: BrowserContext): Promise<Page> => {
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      // The service's CSP refuses inline scripts: a violation would be a console error.
      page.on('console', (message) => {
        if (message.type() === 'error' && /Content Security Policy/.test(message.text())) problems.push(message.text());
      });
      await page.goto(`${suite.server.origin}/order-entry/`);
      await eventually(() => page.getByLabel('Customer', { exact: true }).locator('option').count()).toBeGreaterThan(1);
      await eventually(() =>
        line(page, 1).getByLabel('Product', { exact: true }).locator('option').count(),
      ).toBeGreaterThan(1);
      (page as Page & { problems?: string[] }).problems = problems;
      return page;
    };

    const line = (page: Page, n: number) => page.getByRole('group', { name: `Line ${n}`, exact: true });
    const notice = (page: Page) => page.locator('#notice');
    const orderHeading = (page: Page) => page.locator('#order-heading');
    const orderCount = () => suite.server.database.prisma.salesOrder.count();

    const fillHeader = async (page: Page, reference: string) => {
      await page.getByLabel('Customer', { exact: true }).selectOption({ label: 'Rahman Traders' });
      await page.getByLabel('Location', { exact: true }).selectOption({ label: 'Dhaka' });
      await page.getByLabel('Order date').fill(ORDER_DATE);
      await page.getByLabel('Customer reference').fill(reference);
    };

    const fillLine = async (page: Page, n: number, product: string, quantity: string, rate: string) => {
      if (n > 1) await page.getByRole('button', { name: 'Add line' }).click();
      const row = line(page, n);
      await eventually(() => row.getByLabel('Product', { exact: true }).locator('option').count()).toBeGreaterThan(1);
      await row.getByLabel('Product', { exact: true }).selectOption({ label: product });
      await row.getByLabel('Quantity').fill(quantity);
      await row.getByLabel('Rate').fill(rate);
    };

    const createByApi = async (overrides: Record<string, unknown> = {}) =>
      (await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures, overrides)).expect(201)).body
        .data as {
        sales_order_id: number;
        order_number: string;
      };

    const openOrder = async (page: Page, number: string) => {
      await page.getByLabel('Search orders').fill(number);
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByRole('button', { name: number, exact: true }).click();
      // The heading changes as loading starts; the notice comes once the form holds the order
      // and its history, so a field typed into from here is not overwritten by the load.
      await eventually(() => notice(page).textContent()).toBe(`Opened ${number}.`);
      await page.getByRole('heading', { level: 2, name: new RegExp(`Order ${number}`) }).waitFor({ state: 'visible' });
    };

    it('the sign-in link sets the session cookie and opens the page; a bad one is refused', async () => {
      const { token } = await createSession(suite.server.database.prisma, { userId: 'clerk-2' });
      const context = await browser.newContext();
      const page = await context.newPage();
      const refused = await page.goto(`${suite.server.origin}/order-entry/sign-in?session=not-a-session`);
      expect(refused?.status()).toBe(401);
      await page.goto(`${suite.server.origin}/order-entry/sign-in?session=${token}`);
      expect(new URL(page.url()).pathname).toBe('/order-entry/');
      const [cookie] = await context.cookies();
      expect(cookie).toMatchObject({ name: 'erp_session', value: token, httpOnly: true, sameSite: 'Lax', path: '/' });
      await page.getByRole('heading', { name: 'New order' }).waitFor({ state: 'visible' });
      await context.close();
    });

    it('three typed lines: live totals, a licence warning beside its line, Save shows the number', async () => {
      const { context } = await signedIn();
      const page = await openPage(context);
      await fillHeader(page, 'PO-THREE-LINES');
      await page.getByLabel('Field officer').selectOption({ label: 'Sharmin Sultana' });
      await page.getByLabel('Port').selectOption({ label: 'Chattogram Port' });
      await page.getByLabel('Delivery date').fill('2026-11-20');
      await fillLine(page, 1, 'Cypermethrin 10 EC', '10', '455.5');
      await fillLine(page, 2, 'Urea 46% N', '2.5', '1200');
      await fillLine(page, 3, 'Urea 46% N', '3', '33.333');
      await page.getByRole('button', { name: 'Add charge' }).click();
      await page.getByLabel('Charge description').fill('Carriage');
      await page.getByLabel('Charge amount').fill('350');
      await page.getByLabel('Remarks').fill('Deliver to the Bogura warehouse');

      // 4555 + 3000 + 100.00 (3 x 33.333 rounded per line) = 7655; + 350.
      await eventually(() => page.getByLabel('Subtotal').textContent()).toBe('7,655.00');
      await eventually(() => page.getByLabel('Grand total').textContent()).toBe('8,005.00');
      // The licensed product has no licence: the warning stands beside line 1 only.
      await eventually(() => line(page, 1).getByRole('list', { name: 'Licence warnings' }).textContent()).toContain(
        'licence',
      );
      await eventually(() => line(page, 2).getByRole('list', { name: 'Licence warnings' }).locator('li').count()).toBe(
        0,
      );

      if (process.env.ORDER_ENTRY_SCREENSHOT) {
        await page.screenshot({ path: process.env.ORDER_ENTRY_SCREENSHOT, fullPage: true });
      }

      await page.getByRole('button', { name: 'Save' }).click();
      await eventually(() => notice(page).textContent()).toMatch(/^Saved as order DHK-2026-\d{5}\.$/);
      const number = /DHK-2026-\d{5}/.exec((await notice(page).textContent()) ?? '')![0];
      const stored = await suite.server.database.prisma.salesOrder.findFirstOrThrow({
        where: { salesOrderNo: number },
        include: { details: true },
      });
      expect(stored.details).toHaveLength(3);
      expect(stored.grandTotal.toString()).toBe('8005');
      expect(stored).toMatchObject({
        customerReference: 'PO-THREE-LINES',
        fieldOfficerId: ids.officer,
        portId: ids.port,
        createdBy: 'clerk-1',
      });
      await eventually(() => orderHeading(page).textContent()).toBe(`Order ${number} (draft)`);
      expect((page as Page & { problems?: string[] }).problems).toEqual([]);
      await context.close();
    });

    it('a double click on Save makes one order', async () => {
      const { context } = await signedIn();
      const page = await openPage(context);
      await fillHeader(page, 'PO-DOUBLE-CLICK');
      await fillLine(page, 1, 'Urea 46% N', '1', '100');
      const before = await orderCount();
      // Every create the page sends, and those that have been answered: a second click that
      // slipped through would send its request before the first answer arrived.
      const creates = { sent: 0, answered: 0 };
      const isCreate = (request: { method(): string; url(): string }) =>
        request.method() === 'POST' && new URL(request.url()).pathname.endsWith('/sales-orders');
      page.on('request', (request) => {
        if (isCreate(request)) creates.sent += 1;
      });
      page.on('requestfinished', (request) => {
        if (isCreate(request)) creates.answered += 1;
      });
      await page.getByRole('button', { name: 'Save' }).dblclick();
      await eventually(() => notice(page).textContent()).toMatch(/^Saved as order /);
      await eventually(() => creates.answered === creates.sent).toBe(true);
      expect(creates.sent).toBe(1);
      expect(await orderCount()).toBe(before + 1);
      expect(
        await suite.server.database.prisma.salesOrder.count({ where: { customerReference: 'PO-DOUBLE-CLICK' } }),
      ).toBe(1);
      await context.close();
    });

    it('totals: a slow older answer never overwrites a newer one', async () => {
      const { context } = await signedIn();
      const page = await openPage(context);
      let first = true;
      let releaseFirst: () => void = () => {};
      const firstHeld = new Promise<void>((resolve) => {
        releaseFirst = resolve;
      });
      let firstAnswered = false;
      let held: Request | undefined;
      await page.route('**/sales-orders/calculate-totals', async (route) => {
        if (first) {
          first = false;
          held = route.request();
          await firstHeld;
          await route.continue();
          return;
        }
        await route.continue();
      });
      const row = line(page, 1);
      await row.getByLabel('Quantity').fill('1');
      await row.getByLabel('Rate').fill('10');
      // The first request (10.00) is held back; the next (20.00) answers first.
      await eventually(() => first).toBe(false);
      await row.getByLabel('Quantity').fill('2');
      await eventually(() => page.getByLabel('Grand total').textContent()).toBe('20.00');
      // Now the older answer arrives, late: the page must keep the newer total.
      page.on('requestfinished', (request) => {
        if (request === held) firstAnswered = true;
      });
      releaseFirst();
      await eventually(() => firstAnswered).toBe(true);
      // The page has had the old answer; one more turn of its event loop to apply it, had it wanted to.
      await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)));
      expect(await page.getByLabel('Grand total').textContent()).toBe('20.00');
      await context.close();
    });

    it("the envelope's errors stand beside the fields their paths name", async () => {
      const { context } = await signedIn();
      const page = await openPage(context);
      await page.getByLabel('Location', { exact: true }).selectOption({ label: 'Dhaka' });
      await fillLine(page, 1, 'Urea 46% N', 'abc', '10');
      await page.getByRole('button', { name: 'Save' }).click();
      // customer_id and details.0.quantity: each beside its own control.
      await eventually(() => page.getByLabel('Customer', { exact: true }).getAttribute('aria-invalid')).toBe('');
      await eventually(() => descriptionOf(page.getByLabel('Customer', { exact: true }))).toMatch(/.+/);
      await eventually(() => line(page, 1).getByLabel('Quantity').getAttribute('aria-invalid')).toBe('');
      await eventually(() => page.getByLabel('Location', { exact: true }).getAttribute('aria-invalid')).toBeNull();
      await context.close();
    });

    it('the list searches and loads more pages; an edit from a stale tab gets a clear message and the reloaded order', async () => {
      for (let i = 0; i < 12; i += 1) await createByApi({ customer_reference: `PO-PAGED-${i}` });
      const { context } = await signedIn();
      const page = await openPage(context);
      await page.getByLabel('Search orders').fill('PO-PAGED');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      const rows = page.getByRole('table', { name: 'Orders' }).locator('tbody tr');
      await eventually(() => rows.count()).toBe(10);
      await page.getByRole('button', { name: 'Load more' }).click();
      await eventually(() => rows.count()).toBe(12);
      await page.getByRole('button', { name: 'Load more' }).waitFor({ state: 'hidden' });

      const { order_number: number } = await createByApi({ remarks: 'first' });
      await openOrder(page, number);
      const second = await openPage(context);
      await openOrder(second, number);
      await second.getByLabel('Remarks').fill('changed in the second tab');
      await second.getByRole('button', { name: 'Save' }).click();
      await eventually(() => notice(second).textContent()).toBe(`Saved ${number}.`);

      await page.getByLabel('Remarks').fill('changed in the first tab');
      await page.getByRole('button', { name: 'Save' }).click();
      await eventually(() => notice(page).textContent()).toContain(
        `Someone else changed ${number} after you opened it`,
      );
      await eventually(() => page.getByLabel('Remarks').inputValue()).toBe('changed in the second tab');
      await context.close();
    });

    it('confirm, then cancel with a reason; the history shows both', async () => {
      const { order_number: number, sales_order_id: id } = await createByApi({
        details: [{ product_id: suite.fixtures.products.otherProduct.id, quantity: 4, rate: 50 }],
      });
      const { context } = await signedIn();
      const page = await openPage(context);
      await openOrder(page, number);
      await page.getByRole('button', { name: 'Confirm' }).click();
      await eventually(() => notice(page).textContent()).toBe(`Confirmed ${number}.`);
      await eventually(() => orderHeading(page).textContent()).toBe(`Order ${number} (confirmed)`);
      // Confirmed: the lines are locked, the fulfilment fields are not.
      await eventually(() => line(page, 1).getByLabel('Quantity').isDisabled()).toBe(true);
      await eventually(() => page.getByLabel('Customer reference').isDisabled()).toBe(false);

      await page.getByRole('button', { name: 'Cancel order' }).click();
      await page.getByLabel('Cancellation reason').fill('Customer withdrew the order');
      await page.getByRole('button', { name: 'Cancel this order' }).click();
      await eventually(() => notice(page).textContent()).toBe(`Cancelled ${number}.`);
      await eventually(() => orderHeading(page).textContent()).toBe(`Order ${number} (cancelled)`);
      await eventually(() => page.getByRole('list', { name: 'History' }).textContent()).toContain('confirm');
      await eventually(() => page.getByRole('list', { name: 'History' }).textContent()).toContain(
        'reason: Customer withdrew the order',
      );
      const stored = (await suite.server.http.get(`/sales-orders/${id}`).expect(200)).body.data;
      expect(stored).toMatchObject({ status: 'cancelled', cancellation_reason: 'Customer withdrew the order' });
      await context.close();
    });

    it('a session that expires mid-way gives the sign-in message and keeps what was typed', async () => {
      const { context, token } = await signedIn();
      const page = await openPage(context);
      await fillHeader(page, 'PO-EXPIRED');
      await fillLine(page, 1, 'Urea 46% N', '2', '10');
      await eventually(() => page.getByLabel('Grand total').textContent()).toBe('20.00');
      // The host ends the session, as its logout or expiry would.
      await suite.server.database.prisma.$executeRaw`
      UPDATE sessions SET expires_at = now() - interval '1 second'
      WHERE token_hash = encode(sha256(convert_to(${token}, 'UTF8')), 'hex')`;
      const before = await orderCount();
      await line(page, 1).getByLabel('Quantity').fill('3');
      await eventually(() => page.getByRole('alert').textContent()).toContain('Your session has ended');
      await page.getByRole('button', { name: 'Save' }).click();
      await eventually(() => notice(page).textContent()).toBe('Sign in again to continue.');
      expect(await orderCount()).toBe(before);
      await eventually(() => line(page, 1).getByLabel('Quantity').inputValue()).toBe('3');
      await eventually(() => page.getByLabel('Customer reference').inputValue()).toBe('PO-EXPIRED');
      await context.close();
    });
  },
);
