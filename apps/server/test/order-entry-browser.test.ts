import type { BrowserContext, Locator, Page, Request } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';

import { describeInChromium, expectAccessible, useChromiumPage } from './support/chromium-page.js';
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

/**
 * Each visible element matching `selector`, with how many lines its text takes on screen (the
 * distinct tops of its text's line boxes).
 */
const linesOf = (page: Page, selector: string) =>
  page.evaluate<[string, number][]>(`[...document.querySelectorAll(${JSON.stringify(selector)})]
    .filter((element) => element.offsetParent !== null)
    .map((element) => {
      const tops = new Set();
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (node.parentElement.offsetParent === null || node.textContent.trim() === '') continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        for (const rect of range.getClientRects()) tops.add(Math.round(rect.top));
      }
      return [element.textContent.trim(), tops.size];
    })`);

/** What sticks out of the page or out of its panel (section), at the page's current width. */
const overflowing = (page: Page) =>
  page.evaluate<string[]>(`(() => {
    const problems = [];
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth > width)
      problems.push('the page scrolls sideways (' + document.documentElement.scrollWidth + ' > ' + width + ')');
    for (const section of document.querySelectorAll('main section')) {
      if (section.offsetParent === null) continue;
      const box = section.getBoundingClientRect();
      if (section.scrollWidth > section.clientWidth) problems.push((section.id || section.className) + ' scrolls sideways');
      for (const element of section.querySelectorAll('*')) {
        const rect = element.getBoundingClientRect();
        if (rect.width === 0) continue;
        if (rect.right > box.right + 0.5 || rect.left < box.left - 0.5)
          problems.push(element.tagName.toLowerCase() + ' "' + (element.textContent || '').trim().slice(0, 30) + '" sticks out of ' + (section.id || 'a panel'));
      }
      for (const scroller of section.querySelectorAll('.table-box'))
        if (scroller.scrollWidth > scroller.clientWidth) problems.push('a table in ' + section.id + ' is cut');
    }
    return problems;
  })()`);

describeInChromium("order entry page in Chromium (needs Chromium: CHROMIUM_PATH or Debian's chromium package)", () => {
  const suite = useServerWithFixtures({ ORDER_ENTRY_PAGE: 'true', ORDER_ENTRY_SIGN_IN: 'true' });
  const chromium = useChromiumPage(suite);
  const ids = { officer: 0, port: 0 };

  beforeAll(async () => {
    const prisma = suite.server.database.prisma;
    ids.officer = (await prisma.fieldOfficer.create({ data: { code: 'FO-1', name: 'Sharmin Sultana' } })).id;
    ids.port = (await prisma.port.create({ data: { code: 'PT-1', name: 'Chattogram Port' } })).id;
  });
  /** A browser context holding a fresh host session cookie for the server, as the host's login leaves it. */
  const signedIn = () => chromium.signedIn();

  /** The page, loaded with its lists in and the first line in place (Save is on from then). */
  const openPage = async (context: BrowserContext): Promise<Page> => {
    const { page, problems } = await chromium.openPage(context, { untilLoaded: false });
    await eventually(() => page.getByRole('button', { name: 'Save' }).isDisabled()).toBe(false);
    await line(page, 1).waitFor();
    (page as Page & { problems?: string[] }).problems = problems;
    return page;
  };

  const line = (page: Page, n: number) => page.getByRole('group', { name: `Line ${n}`, exact: true });
  /** Types the start of `name` into a picker's field and clicks its option in the picker's list. */
  const choose = async (page: Page, field: Locator, list: string, name: string) => {
    await field.fill(name.slice(0, 4));
    await page.getByRole('listbox', { name: list }).getByRole('option', { name, exact: true }).click();
    await eventually(() => field.inputValue()).toBe(name);
  };
  const notice = (page: Page) => page.locator('#notice');
  const orderHeading = (page: Page) => page.locator('#order-heading');
  const orderCount = () => suite.server.database.prisma.salesOrder.count();

  const fillHeader = async (page: Page, reference: string) => {
    await choose(page, page.getByLabel('Customer', { exact: true }), 'Customers', 'Rahman Traders');
    await page.getByLabel('Location', { exact: true }).selectOption({ label: 'Dhaka' });
    await page.getByLabel('Order date').fill(ORDER_DATE);
    await page.getByLabel('Customer reference').fill(reference);
  };

  const fillLine = async (page: Page, n: number, product: string, quantity: string, rate: string) => {
    if (n > 1) await page.getByRole('button', { name: 'Add line' }).click();
    const row = line(page, n);
    await choose(page, row.getByLabel('Product', { exact: true }), 'Products', product);
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
    // The heading changes as loading starts; the list says "Opened" once the form holds the
    // order and its history, so a field typed into from here is not overwritten by the load.
    await eventually(() => page.locator('#list-status').textContent()).toBe(`Opened ${number}.`);
    await page.getByRole('heading', { level: 2, name: new RegExp(`Order ${number}`) }).waitFor({ state: 'visible' });
  };

  it('the sign-in link sets the session cookie and opens the page; a bad one is refused', async () => {
    const { token } = await createSession(suite.server.database.prisma, { userId: 'clerk-2' });
    const context = await chromium.browser.newContext();
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
    await page.getByLabel('Port', { exact: true }).selectOption({ label: 'Chattogram Port' });
    await page.getByLabel('Delivery date').fill('2026-11-20');
    await fillLine(page, 1, 'Cypermethrin 10 EC', '10', '455.5');
    await fillLine(page, 2, 'Urea 46% N', '2.5', '1200');
    await fillLine(page, 3, 'Urea 46% N', '3', '33.333');
    await page.getByRole('button', { name: 'Add charge' }).click();
    await page.getByLabel('Charge description').fill('Carriage');
    await page.getByLabel('Charge amount').fill('350');
    await page.getByLabel('Remarks').fill('Deliver to the Bogura warehouse');

    // 4555 + 3000 + 100.00 (3 x 33.333 rounded per line) = 7655; + 350.
    await eventually(() => page.getByLabel('Subtotal', { exact: true }).textContent()).toBe('7,655.00');
    await eventually(() => page.getByLabel('Grand total', { exact: true }).textContent()).toBe('8,005.00');
    // The licensed product has no licence: the warning stands beside line 1 only.
    await eventually(() => line(page, 1).getByRole('list', { name: 'Licence warnings' }).textContent()).toContain(
      'licence',
    );
    await eventually(() => line(page, 2).getByRole('list', { name: 'Licence warnings' }).locator('li').count()).toBe(0);

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

  it('licence warnings: a slow older answer never overwrites a newer one; totals need no request', async () => {
    const { context } = await signedIn();
    const page = await openPage(context);
    const totalsAsked: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/calculate-totals')) totalsAsked.push(request.url());
    });
    let first = true;
    let releaseFirst: () => void = () => {};
    const firstHeld = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    let firstAnswered = false;
    let newerAnswered = false;
    let held: Request | undefined;
    page.on('requestfinished', (request) => {
      if (request.url().includes('/validate-licence') && request !== held) newerAnswered = true;
    });
    await page.route('**/sales-orders/validate-licence', async (route) => {
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
    // The licensed product without a licence: the first answer (held back) would warn.
    await choose(page, row.getByLabel('Product', { exact: true }), 'Products', 'Cypermethrin 10 EC');
    await row.getByLabel('Quantity').fill('1');
    await row.getByLabel('Rate').fill('10');
    await eventually(() => first).toBe(false);
    // The clerk picks another product, which needs none: the next answer comes first, no warning.
    await choose(page, row.getByLabel('Product', { exact: true }), 'Products', 'Urea 46% N');
    await row.getByLabel('Quantity').fill('2');
    await eventually(() => page.getByLabel('Grand total', { exact: true }).textContent()).toBe('20.00');
    // Its check is asked after a pause in typing, and answered while the first is still held.
    await eventually(() => newerAnswered).toBe(true);
    expect(await row.locator('.warnings li').count()).toBe(0);
    // A second line with the licensed product and no quantity yet: nothing new to ask about, and
    // the older answer's warning (about that product) would stand beside it, were that answer taken.
    await page.getByRole('button', { name: 'Add line' }).click();
    const second = line(page, 2);
    await choose(page, second.getByLabel('Product', { exact: true }), 'Products', 'Cypermethrin 10 EC');
    // Now the older answer arrives, late: the page must keep the newer warnings (none).
    page.on('requestfinished', (request) => {
      if (request === held) firstAnswered = true;
    });
    releaseFirst();
    await eventually(() => firstAnswered).toBe(true);
    // A later marker: a search sent after the old answer arrived, its answer shown. The page
    // has done with the old answer by then.
    await page.getByLabel('Search orders').fill('no-such-order');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await eventually(() =>
      page.getByRole('region', { name: 'Orders', exact: true }).getByText('No orders match.').isVisible(),
    ).toBe(true);
    expect(await row.locator('.warnings li').count()).toBe(0);
    expect(await second.locator('.warnings li').count()).toBe(0);
    // The totals followed every keystroke without asking the service.
    expect(totalsAsked).toEqual([]);
    await context.close();
  });

  it("checks before sending, in the clerk's words at the field; Enter does not submit; errors clear when corrected", async () => {
    const { context } = await signedIn();
    const page = await openPage(context);
    const writes: string[] = [];
    page.on('request', (request) => {
      if (request.method() !== 'GET' && /\/sales-orders(\/\d+)?$/.test(new URL(request.url()).pathname))
        writes.push(request.url());
    });
    await page.getByLabel('Location', { exact: true }).selectOption({ label: 'Dhaka' });
    await fillLine(page, 1, 'Urea 46% N', 'abc', '10');
    const quantity = line(page, 1).getByLabel('Quantity');
    // Leaving the field says what is wrong there, before any Save.
    await line(page, 1).getByLabel('Rate').focus();
    await eventually(() => quantity.getAttribute('aria-invalid')).toBe('true');
    await eventually(() => descriptionOf(quantity)).toBe('Quantity must be a number, like 12 or 12.5');
    await quantity.fill('0');
    await eventually(() => descriptionOf(quantity)).toBe('Quantity must be more than 0');

    // Enter in a field does not send the half-typed order.
    await page.getByLabel('Customer reference').fill('PO-ENTER');
    await page.getByLabel('Customer reference').press('Enter');
    await quantity.press('Enter');

    await page.getByRole('button', { name: 'Save' }).click();
    const customer = page.getByLabel('Customer', { exact: true });
    await eventually(() => customer.getAttribute('aria-invalid')).toBe('true');
    await eventually(() => descriptionOf(customer)).toBe('Choose a customer');
    await eventually(() => notice(page).textContent()).toBe('Not saved: correct the marked fields.');
    // The status line stands beside the button that caused it.
    expect(
      await page
        .locator('.actions', { has: page.locator('#notice') })
        .getByRole('button', { name: 'Save' })
        .count(),
    ).toBe(1);
    expect(await page.getByLabel('Location', { exact: true }).getAttribute('aria-invalid')).toBeNull();
    await expectAccessible(page);
    expect(writes).toEqual([]);

    // Each field's error goes as it is corrected.
    await choose(page, customer, 'Customers', 'Rahman Traders');
    await eventually(() => customer.getAttribute('aria-invalid')).toBeNull();
    await eventually(() => customer.getAttribute('aria-describedby')).toBeNull();
    await quantity.fill('2');
    await eventually(() => quantity.getAttribute('aria-invalid')).toBeNull();

    // A refusal only the service can make, worded from its code; then a good save leaves no trace of it.
    await page.getByLabel('Order date').fill(ORDER_DATE);
    await page.getByLabel('Delivery date').fill('2026-11-01');
    await page.getByRole('button', { name: 'Save' }).click();
    await eventually(() => descriptionOf(page.getByLabel('Delivery date'))).toBe(
      'The delivery date cannot be before the order date',
    );
    await eventually(() => notice(page).textContent()).toBe('The order was not saved: correct the marked fields.');
    expect(await page.locator('body').textContent()).not.toContain('Invalid input data');
    await page.getByLabel('Delivery date').fill('2026-11-20');
    await eventually(() => page.getByLabel('Delivery date').getAttribute('aria-invalid')).toBeNull();
    await page.getByRole('button', { name: 'Save' }).click();
    await eventually(() => notice(page).textContent()).toMatch(/^Saved as order DHK-2026-\d{5}\.$/);
    expect(writes).toHaveLength(2);
    expect(await page.locator('[aria-invalid]').count()).toBe(0);
    expect(await page.locator('.field-error:not([hidden])').count()).toBe(0);
    expect(await page.locator('body').textContent()).not.toMatch(/Invalid input data|Expected number/);
    expect(await suite.server.database.prisma.salesOrder.count({ where: { customerReference: 'PO-ENTER' } })).toBe(1);
    await context.close();
  });

  it('after Add line the focus is on the new Product; a loading page says so and keeps Save off until the options are in', async () => {
    const { context } = await signedIn();
    const page = await context.newPage();
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/sales-orders/dropdown-options/products*', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${suite.server.origin}/order-entry/`);
    await eventually(() => notice(page).textContent()).toBe('Loading the order form…');
    expect(await page.locator('main').getAttribute('aria-busy')).toBe('true');
    expect(await page.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
    release();
    await eventually(() => page.getByRole('button', { name: 'Save' }).isDisabled()).toBe(false);
    expect(await page.locator('main').getAttribute('aria-busy')).toBeNull();
    expect(await notice(page).getAttribute('role')).toBe('status');

    await page.getByRole('button', { name: 'Add line' }).click();
    await eventually(() =>
      page.evaluate<string>(
        `document.activeElement.closest('fieldset')?.querySelector('legend')?.textContent + ' ' + document.activeElement.labels?.[0]?.textContent`,
      ),
    ).toBe('Line 2 Product');
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
    await eventually(() => notice(page).textContent()).toContain(`Someone else changed ${number} after you opened it`);
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
    await eventually(() => page.getByRole('list', { name: 'History' }).textContent()).toContain('Confirmed');
    await eventually(() => page.getByRole('list', { name: 'History' }).textContent()).toContain(
      'Reason: Customer withdrew the order',
    );
    const stored = (await suite.server.http.get(`/sales-orders/${id}`).expect(200)).body.data;
    expect(stored).toMatchObject({ status: 'cancelled', cancellation_reason: 'Customer withdrew the order' });
    await context.close();
  });

  it('a refused confirm asks for the acknowledgement beside Confirm; warnings show once; the history reads; one number format; axe finds nothing', async () => {
    const { order_number: number, sales_order_id: id } = await createByApi({
      customer_reference: 'PO-READABLE-HISTORY',
    });
    const original = orderBody(suite.fixtures).details;
    await suite.server.http
      .put(`/sales-orders/${id}`)
      .set('If-Match', '"1"')
      .send({
        customer_id: suite.fixtures.customers.otherCustomer.id,
        details: [original[0], { product_id: suite.fixtures.products.otherProduct.id, quantity: 3, rate: 1200 }],
      })
      .expect(200);
    const { context } = await signedIn();
    const page = await openPage(context);
    await expectAccessible(page, 'the empty form');
    await openOrder(page, number);
    const ordersTable = page.getByRole('table', { name: 'Orders' });
    // 4555 + 3 x 1200 + 350: one format in the list and in the form.
    await eventually(() => ordersTable.locator('tr', { hasText: number }).locator('td.number').textContent()).toBe(
      '8,505.00',
    );
    await eventually(() => page.getByLabel('Grand total', { exact: true }).textContent()).toBe('8,505.00');

    const history = page.getByRole('list', { name: 'History' });
    await eventually(() => history.locator('li').count()).toBe(2);
    const changed = history.locator('li').first();
    const rowOf = async (label: string) =>
      await changed
        .locator('tr', { has: page.locator('th', { hasText: label }) })
        .first()
        .locator('th, td')
        .allTextContents();
    expect(await rowOf('Customer')).toEqual(['Customer', 'Rahman Traders', 'Karim Agro Centre']);
    expect(await rowOf('Line 2: Quantity')).toEqual(['Line 2: Quantity', '2.5', '3']);
    expect(await rowOf('Grand total')).toEqual(['Grand total', '7,905.00', '8,505.00']);
    expect(await changed.locator('.history-title').textContent()).toMatch(/^Version 2: Changed, by /);
    const created = await history.locator('li').last().textContent();
    expect(created).toContain('Cypermethrin 10 EC: 10 × 455.5 = 4,555.00');
    expect(await history.textContent()).not.toMatch(/_id\b|_no\b|sales order no|financial year/);
    await expectAccessible(page, 'an opened draft with its history');

    const warnings = line(page, 1).getByRole('list', { name: 'Licence warnings' }).locator('li');
    await eventually(() => warnings.count()).toBe(1);
    await page.getByRole('button', { name: 'Confirm' }).click();
    await eventually(() => notice(page).textContent()).toBe(
      "Tick 'Acknowledge licence warnings' to confirm despite them.",
    );
    expect(
      await page
        .locator('.actions', { has: page.locator('#notice') })
        .getByRole('button', { name: 'Confirm' })
        .count(),
    ).toBe(1);
    const acknowledge = page.getByLabel('Acknowledge licence warnings');
    expect(await acknowledge.getAttribute('aria-invalid')).toBe('true');
    // The warning stays once, amber, beside its line: not again in red under the product.
    expect(await warnings.count()).toBe(1);
    expect(await line(page, 1).getByLabel('Product', { exact: true }).getAttribute('aria-invalid')).toBeNull();
    // No field's code shows in the order form (the Import screen's CSV column list names it as a column).
    expect(await page.locator('#order').textContent()).not.toContain('acknowledge_warnings');
    await expectAccessible(page, 'a refused confirm');

    await acknowledge.check();
    await eventually(() => acknowledge.getAttribute('aria-invalid')).toBeNull();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await eventually(() => notice(page).textContent()).toBe(`Confirmed ${number}.`);
    await eventually(() => history.locator('li').count()).toBe(3);
    expect(await history.locator('li').first().textContent()).toContain('Confirmed despite 1 licence warning.');
    await expectAccessible(page, 'a confirmed order, the list and the history');
    expect((page as Page & { problems?: string[] }).problems).toEqual([]);
    await context.close();
  });

  it('one product list serves every line, worked by keys; a typed text that names no product is refused at the field', async () => {
    const { context } = await signedIn();
    const page = await openPage(context);
    for (let n = 2; n <= 4; n += 1) await page.getByRole('button', { name: 'Add line' }).click();
    await line(page, 4).waitFor();
    // One listbox for the products, whatever the number of lines; no option lists per line.
    expect(await page.getByRole('listbox', { name: 'Products', includeHidden: true }).count()).toBe(1);
    expect(await page.locator('fieldset.line option').count()).toBe(0);

    // Line 3 by keys only: type, Down to the second match, Enter.
    const product = line(page, 3).getByLabel('Product', { exact: true });
    await product.click();
    await page.keyboard.type('e');
    expect(await product.getAttribute('aria-expanded')).toBe('true');
    const list = page.getByRole('listbox', { name: 'Products' });
    // Names containing the text, in the list's order (the inactive product is not offered).
    await eventually(() => list.getByRole('option').allTextContents()).toEqual(['Cypermethrin 10 EC', 'Urea 46% N']);
    const active = async () =>
      page.locator(`[id="${(await product.getAttribute('aria-activedescendant')) ?? ''}"]`).textContent();
    await eventually(active).toBe('Cypermethrin 10 EC');
    await page.keyboard.press('ArrowDown');
    await eventually(active).toBe('Urea 46% N');
    await page.keyboard.press('Enter');
    expect(await product.inputValue()).toBe('Urea 46% N');
    expect(await product.getAttribute('aria-expanded')).toBe('false');
    // Those starting with the text come before those that only contain it.
    await product.fill('u');
    await eventually(() => list.getByRole('option').allTextContents()).toEqual(['Urea 46% N']);
    // Escape closes the list, then puts back the chosen name.
    await page.keyboard.press('Escape');
    expect(await product.getAttribute('aria-expanded')).toBe('false');
    await page.keyboard.press('Escape');
    expect(await product.inputValue()).toBe('Urea 46% N');

    // A name typed whole and left is that product; a text that names none is said at the field.
    const first = line(page, 1).getByLabel('Product', { exact: true });
    await first.fill('urea 46% n');
    await line(page, 1).getByLabel('Quantity').focus();
    await eventually(() => first.inputValue()).toBe('Urea 46% N');
    expect(await first.getAttribute('aria-invalid')).toBeNull();
    const second = line(page, 2).getByLabel('Product', { exact: true });
    await second.fill('Urea 46');
    await line(page, 2).getByLabel('Quantity').focus();
    await eventually(() => descriptionOf(second)).toBe('Choose a product');
    await expectAccessible(page);
    await context.close();
  });

  it('a confirmed order reads as locked; statuses never break inside the word; at 390 px the open order comes first and the list is one line per order', async () => {
    // A customer with a long name, as the demo's have: the list's columns are squeezed.
    const longName = await suite.server.database.prisma.customer.create({
      data: { code: 'C-LONG', name: 'Majumder Beej Bhandar and Sons Agro Traders, Naogaon Sadar' },
    });
    const created = [];
    for (const name of ['first', 'second', 'third'])
      created.push(await createByApi({ customer_reference: `PO-LOCKED-${name}`, customer_id: longName.id }));
    const { order_number: number, sales_order_id: id } = created[2]!;
    await suite.server.http
      .post(`/sales-orders/${id}/confirm`)
      .set('If-Match', '"1"')
      .send({ acknowledge_warnings: true })
      .expect(200);
    const { context } = await signedIn();
    const page = await openPage(context);
    await openOrder(page, number);
    // Every field of the lines is disabled and looks it (grey, dashed); the note says why.
    const lineFields = page.locator('fieldset.line input, fieldset.line button, fieldset.charge input');
    expect(await lineFields.count()).toBeGreaterThan(0);
    expect(
      await lineFields.evaluateAll((fields) => fields.every((f) => (f as unknown as { disabled: boolean }).disabled)),
    ).toBe(true);
    const looks = await page.evaluate<string>(
      `getComputedStyle(document.querySelector('fieldset.line input')).borderTopStyle`,
    );
    expect(looks).toBe('dashed');
    expect(await page.locator('.locked-note').textContent()).toContain('Confirmed: the lines are locked');
    for (const field of ['Customer', 'Location', 'Order date'])
      expect(await page.getByLabel(field, { exact: true }).isDisabled()).toBe(true);

    // "confirmed" stays one word: its cell is one line high at 1280 and 1024 px.
    for (const width of [1280, 1024]) {
      await page.setViewportSize({ width, height: 900 });
      expect(await linesOf(page, '.orders-table td.status-cell'), `the statuses at ${width} px`).toEqual(
        expect.arrayContaining([['confirmed', 1]]),
      );
      expect((await linesOf(page, '.orders-table td.status-cell')).every(([, count]) => count === 1)).toBe(true);
    }

    // A phone: the open order above the list; each order one line (number, customer, total).
    await page.setViewportSize({ width: 390, height: 800 });
    await page.getByLabel('Search orders').fill('PO-LOCKED');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const rows = page.getByRole('table', { name: 'Orders' }).locator('tbody tr');
    await eventually(() => rows.count()).toBe(3);
    const tops = await page.evaluate<number[]>(
      `['#order', '#orders'].map((selector) => document.querySelector(selector).getBoundingClientRect().top)`,
    );
    expect(tops[0]).toBeLessThan(tops[1]!);
    const rowLines = await linesOf(page, '.orders-table tbody tr');
    expect(rowLines).toHaveLength(3);
    for (const [text, count] of rowLines) expect(count, text).toBe(1);
    expect(await rows.first().locator('td:visible').count()).toBe(3);
    expect(await overflowing(page)).toEqual([]);
    await expectAccessible(page);
    await context.close();
  });

  it.each([1280, 1024, 390])('nothing overflows at %i px', async (width) => {
    const { order_number: number } = await createByApi({
      customer_reference: `PO-WIDTH-${width}-WITH-A-LONG-REFERENCE`,
      other_charges: [{ description: 'Carriage to the Bogura warehouse and back', amount: 123456.5 }],
    });
    const { context: narrow } = await chromium.signedIn({ context: { viewport: { width, height: 900 } } });
    const page = await openPage(narrow);
    expect(await overflowing(page), 'the empty form').toEqual([]);
    await openOrder(page, number);
    await eventually(() => page.getByRole('list', { name: 'History' }).locator('li').count()).toBe(1);
    await page.getByRole('button', { name: 'Add line' }).click();
    await page.getByRole('button', { name: 'Save' }).click();
    await eventually(() => notice(page).textContent()).toBe('Not saved: correct the marked fields.');
    expect(await overflowing(page), 'an opened order with errors, the list and the history').toEqual([]);
    await expectAccessible(page);
    await narrow.close();
  });

  it('a session that expires mid-way gives the sign-in message and keeps what was typed', async () => {
    const { context, token } = await signedIn();
    const page = await openPage(context);
    await fillHeader(page, 'PO-EXPIRED');
    await fillLine(page, 1, 'Urea 46% N', '2', '10');
    await eventually(() => page.getByLabel('Grand total', { exact: true }).textContent()).toBe('20.00');
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
});

describeInChromium(
  'order entry page in Chromium: a 500-line order under the default rate limit (needs Chromium)',
  () => {
    // The service's default: 100 requests a minute from one address (the test server raises it).
    const suite = useServerWithFixtures({ ORDER_ENTRY_PAGE: 'true', RATE_LIMIT_PER_MINUTE: '100' });
    const chromium = useChromiumPage(suite);

    it('opens, saves and confirms a 500-line order in a few requests that do not grow with its lines', async () => {
      const { products } = suite.fixtures;
      const details = Array.from({ length: 500 }, (_, index) => ({
        product_id: index % 2 === 0 ? products.otherProduct.id : products.product.id,
        quantity: index + 1,
        rate: 10,
      }));
      const created = (
        await suite.server.http
          .post('/sales-orders')
          .send(orderBody(suite.fixtures, { details, customer_reference: 'PO-500-LINES' }))
          .expect(201)
      ).body.data as { sales_order_id: number; order_number: string };

      const { context } = await chromium.signedIn({ context: { viewport: { width: 1280, height: 900 } } });
      const requests: string[] = [];
      const refused: number[] = [];
      const { page } = await chromium.openPage(context, {
        untilLoaded: false,
        beforeLoad: (loading) => {
          loading.on('request', (request) => {
            const url = new URL(request.url());
            // Paths from /sales-orders on: the API's base path aside.
            const at = url.pathname.indexOf('/sales-orders');
            if (at >= 0) requests.push(`${request.method()} ${url.pathname.slice(at)}${url.search}`);
          });
          loading.on('response', (response) => {
            if (response.status() === 429 || response.status() >= 500) refused.push(response.status());
          });
        },
      });
      const take = () => requests.splice(0);

      await eventually(() => page.locator('#order form button.primary').isDisabled()).toBe(false);
      const atLoad = take();
      // One call per dropdown type and the list; nothing else.
      expect(atLoad.filter((request) => request.includes('dropdown-options')).sort()).toEqual(
        ['customers', 'field-officers', 'locations', 'ports', 'products'].map(
          (type) => `GET /sales-orders/dropdown-options/${type}`,
        ),
      );
      expect(atLoad).toHaveLength(6);

      await page.getByLabel('Search orders').fill(created.order_number);
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      const started = Date.now();
      await page.getByRole('button', { name: created.order_number, exact: true }).click();
      await eventually(() => page.locator('#order-heading').textContent()).toBe(
        `Order ${created.order_number} (draft)`,
      );
      await eventually(() => page.locator('ol.history > li').count()).toBe(1);
      const pickers = page.locator('fieldset.line [role="combobox"]');
      await eventually(() => pickers.count()).toBe(500);
      const chosen = await pickers.evaluateAll((elements) =>
        elements.map((field) => (field as unknown as { value: string }).value),
      );
      const openedInMs = Date.now() - started;
      const names = {
        [products.product.id]: products.product.name,
        [products.otherProduct.id]: products.otherProduct.name,
      };
      expect(chosen).toEqual(details.map((detail) => names[detail.product_id]));
      await eventually(() => page.locator('fieldset.line .warnings li').count()).toBe(250);
      const atOpen = take();
      // The search, the order, its history and its licence warnings: not one call per line.
      expect(atOpen.map((request) => request.replace(/\?.*/, ''))).toEqual(
        expect.arrayContaining(['GET /sales-orders', `GET /sales-orders/${created.sales_order_id}`]),
      );
      expect(atOpen.length).toBeLessThanOrEqual(5);

      // CSS locators here: computing the accessible name of each of 2,000 labelled controls under a
      // loaded machine's CPU can outlast the locator's timeout.
      const save = page.locator('#order form button.primary');
      await page
        .locator('.field', { has: page.locator('label', { hasText: /^Remarks$/ }) })
        .locator('textarea')
        .fill('Checked line by line');
      await save.click();
      await eventually(() => page.locator('#notice').textContent()).toBe(`Saved ${created.order_number}.`);
      await eventually(() => page.locator('ol.history > li').count()).toBe(2);
      const atSave = take();
      expect(atSave.length).toBeLessThanOrEqual(5);

      await page.locator('#acknowledge-warnings').check();
      await page.locator('button', { hasText: /^Confirm$/ }).click();
      await eventually(() => page.locator('#notice').textContent()).toBe(`Confirmed ${created.order_number}.`);
      await eventually(() => page.locator('ol.history > li').count()).toBe(3);
      // A later marker: a search the clerk starts now. Whatever the confirm set off was sent before it.
      const marker = 'after-confirm';
      await page.locator('form[role="search"] input').fill(marker);
      await page.locator('form[role="search"] button[type="submit"]').click();
      await eventually(() => requests.some((request) => request.includes(marker))).toBe(true);
      const untilMarker = take();
      const atConfirm = untilMarker.slice(
        0,
        untilMarker.findIndex((request) => request.includes(marker)),
      );
      // The confirm, the history and the list: what changed, nothing else.
      expect(atConfirm.length).toBeLessThanOrEqual(3);

      expect(refused).toEqual([]);
      const stored = await suite.server.database.prisma.salesOrder.findUniqueOrThrow({
        where: { id: created.sales_order_id },
        include: { details: true },
      });
      expect(stored).toMatchObject({ status: 'confirmed', remarks: 'Checked line by line' });
      expect(stored.details).toHaveLength(500);
      console.info(
        `500-line order: ${atLoad.length} requests to load the page, ${atOpen.length} to open the order, ` +
          `${atSave.length} to save it, ${atConfirm.length} to confirm it; its 500 lines shown ${openedInMs} ms after the click`,
        { atOpen, atSave, atConfirm },
      );
      await context.close();
    }, 240_000);
  },
);
