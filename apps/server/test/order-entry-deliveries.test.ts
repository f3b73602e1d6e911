import type { Locator, Page } from 'playwright-core';
import { expect, it } from 'vitest';

import { describeInChromium, expectAccessible, useChromiumPage } from './support/chromium-page.js';
import { ORDER_DATE, orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';

/**
 * The order entry page's Deliveries panel in a real Chromium against the real server: a
 * confirmed order's ordered, delivered, returned and pending per line, a delivery recorded with
 * its quantities prefilled and edited (a line at 0 left out), a return, a cancel, and the
 * service's refusals in the clerk's words beside the line they name.
 */
/** Playwright's locator assertions belong to its test runner; here vitest polls the page instead. */
const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 15_000, interval: 100 });

/**
 * The error beside a line's field (the slot after it in its cell), and whether the field is
 * described by it, as a screen reader would read it.
 */
const errorBeside = async (field: Locator) => {
  const slot = field.locator('xpath=following-sibling::span[contains(@class, "field-error")]');
  const linked = (await field.getAttribute('aria-describedby')) === (await slot.getAttribute('id'));
  return { text: await slot.textContent(), linked };
};

/** The elements of the Deliveries panel that stick out of it sideways (a string: this project's TypeScript has no DOM types). */
const sticksOut = (page: Page) =>
  page.evaluate<string[]>(`(() => {
    const panel = document.querySelector('section.deliveries');
    const box = panel.getBoundingClientRect();
    return [...panel.querySelectorAll('*')]
      .filter((element) => {
        const rect = element.getBoundingClientRect();
        return rect.width > 0 && (rect.right > box.right + 0.5 || rect.left < box.left - 0.5);
      })
      .map((element) => element.tagName.toLowerCase() + ' "' + (element.textContent || '').trim().slice(0, 30) + '"');
  })()`);

interface StoredDelivery {
  delivery_id: number;
  delivery_no: string;
  status: string;
  lines: { sales_order_detail_id: number; quantity: number; returned_quantity: number }[];
}

describeInChromium(
  "order entry page: the Deliveries panel in Chromium (needs Chromium: CHROMIUM_PATH or Debian's chromium package)",
  () => {
    const suite = useServerWithFixtures({ ORDER_ENTRY_PAGE: 'true' });
    const http = () => suite.server.http;
    const chromium = useChromiumPage(suite);

    /** A confirmed order of three lines (10, 2.5 and 7.125), 4 of its first line delivered by the API. */
    const confirmedOrder = async () => {
      const { products } = suite.fixtures;
      const created = await http()
        .post('/sales-orders')
        .send(
          orderBody(suite.fixtures, {
            status: 'confirmed',
            acknowledge_warnings: true,
            customer_reference: 'PO-DELIVERIES',
            details: [
              { product_id: products.product.id, quantity: 10, rate: 455.5 },
              { product_id: products.otherProduct.id, quantity: 2.5, rate: 1200 },
              { product_id: products.otherProduct.id, quantity: 7.125, rate: 100 },
            ],
          }),
        )
        .expect(201);
      const id = created.body.data.sales_order_id as number;
      const order = (await http().get(`/sales-orders/${id}`).expect(200)).body.data as {
        sales_order_no: string;
        details: { sales_order_detail_id: number }[];
      };
      const lines = order.details.map((detail) => detail.sales_order_detail_id);
      const first = (
        await http()
          .post(`/sales-orders/${id}/deliveries`)
          .send({
            delivery_date: ORDER_DATE,
            reference: 'GP-API-1',
            lines: [{ sales_order_detail_id: lines[0], quantity: 4 }],
          })
          .expect(201)
      ).body.data as StoredDelivery;
      return { id, number: order.sales_order_no, lines, first };
    };

    const deliveriesOf = async (id: number) =>
      (await http().get(`/sales-orders/${id}/deliveries`).expect(200)).body.data.items as StoredDelivery[];

    const openOrder = async (page: Page, number: string) => {
      await page.getByLabel('Search orders').fill(number);
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByRole('button', { name: number, exact: true }).click();
      await eventually(() => page.locator('#list-status').textContent()).toBe(`Opened ${number}.`);
    };

    const linesTable = (page: Page) => page.getByRole('table', { name: 'Delivered and pending by line' });
    /** Each line's Line, Product, Ordered, Delivered, Returned and Pending, as the panel shows them. */
    const figures = (page: Page) =>
      linesTable(page)
        .locator('tbody tr')
        .evaluateAll((rows) =>
          rows.map((row) =>
            Array.from((row as unknown as { cells: ArrayLike<{ textContent: string }> }).cells)
              .slice(0, 6)
              .map((cell) => cell.textContent),
          ),
        );
    const deliverNow = (page: Page, n: number) => page.getByLabel(`Deliver now, line ${n}`, { exact: true });
    const deliveriesTable = (page: Page) => page.getByRole('table', { name: 'Deliveries of the order' });
    const deliveryRow = (page: Page, number: string) =>
      deliveriesTable(page).locator('tbody tr', { has: page.getByRole('rowheader', { name: number, exact: true }) });
    const recordStatus = (page: Page) => page.locator('#delivery-record-status');
    const listStatus = (page: Page) => page.locator('#deliveries-status');

    it('shows each line, records a partial delivery with an edited quantity, refuses an over-delivery beside its line, records a return and cancels a delivery', async () => {
      const { id, number, lines, first } = await confirmedOrder();
      const cypermethrin = suite.fixtures.products.product.name;
      const urea = suite.fixtures.products.otherProduct.name;
      const { context, page, problems } = await chromium.open();
      await openOrder(page, number);

      // Ordered, delivered (4 of line 1 by the API), returned and pending, each on its own line.
      await page.getByRole('heading', { name: 'Deliveries', exact: true }).waitFor({ state: 'visible' });
      expect(await figures(page)).toEqual([
        ['1', cypermethrin, '10', '4', '0', '6'],
        ['2', urea, '2.5', '0', '0', '2.5'],
        ['3', urea, '7.125', '0', '0', '7.125'],
      ]);
      expect(await page.locator('.delivery-summary').textContent()).toBe(
        'Partly delivered: some goods are still to deliver.',
      );
      // Each line's pending prefilled; the date today.
      expect(await Promise.all([1, 2, 3].map((n) => deliverNow(page, n).inputValue()))).toEqual(['6', '2.5', '7.125']);
      expect(await page.getByLabel('Date delivered').inputValue()).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      await eventually(() => deliveryRow(page, first.delivery_no).count()).toBe(1);
      expect(await deliveryRow(page, first.delivery_no).locator('td').allTextContents()).toEqual([
        'Nov 15, 2026',
        'GP-API-1',
        'Recorded',
        `Line 1, ${cypermethrin}: 4`,
        'Cancel deliveryRecord a return',
      ]);

      // Line 1 left out (0), line 2 edited down, line 3 as prefilled.
      await deliverNow(page, 1).fill('0');
      await deliverNow(page, 2).fill('1.25');
      await page.getByLabel('Challan or gate pass no.').fill('GP-PAGE-2');
      await page.getByRole('button', { name: 'Record delivery' }).click();
      await eventually(() => recordStatus(page).textContent()).toMatch(/^Recorded delivery DHK-DN-2026-\d{5}\.$/);
      const secondNo = /DHK-DN-2026-\d{5}/.exec((await recordStatus(page).textContent()) ?? '')![0];
      await eventually(() => figures(page)).toEqual([
        ['1', cypermethrin, '10', '4', '0', '6'],
        ['2', urea, '2.5', '1.25', '0', '1.25'],
        ['3', urea, '7.125', '7.125', '0', '0'],
      ]);
      // The pressed button is gone with the form it was in: the focus is on the panel's heading.
      expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Deliveries');
      const second = (await deliveriesOf(id)).find((delivery) => delivery.delivery_no === secondNo)!;
      expect(second.lines.map((line) => [line.sales_order_detail_id, line.quantity])).toEqual([
        [lines[1], 1.25],
        [lines[2], 7.125],
      ]);
      // The new pending prefilled again; the form's order re-read (a Save now would not be refused as stale).
      expect(await Promise.all([1, 2, 3].map((n) => deliverNow(page, n).inputValue()))).toEqual(['6', '1.25', '0']);
      await eventually(() => deliveriesTable(page).locator('tbody tr').count()).toBe(2);

      // 2 of line 2 (1.25 pending) is refused: the service names row 0 of the request, which is line 2.
      await deliverNow(page, 1).fill('0');
      await deliverNow(page, 2).fill('2');
      await page.getByRole('button', { name: 'Record delivery' }).click();
      await eventually(() => recordStatus(page).textContent()).toBe('Not recorded: correct the marked fields.');
      expect(await deliverNow(page, 2).getAttribute('aria-invalid')).toBe('true');
      expect(await errorBeside(deliverNow(page, 2))).toEqual({
        text: 'That is more than the line still has to deliver',
        linked: true,
      });
      expect(await errorBeside(deliverNow(page, 1))).toEqual({ text: '', linked: false });
      expect(await deliverNow(page, 1).getAttribute('aria-invalid')).toBeNull();
      expect(await deliveriesOf(id)).toHaveLength(2);
      await expectAccessible(page, 'a refused delivery');

      // A return of 0.125 of line 3 against the page's delivery: pending again.
      await deliveryRow(page, secondNo).getByRole('button', { name: 'Record a return' }).click();
      const returnForm = page.getByRole('form', { name: `Return against delivery ${secondNo}` });
      await returnForm.getByLabel('Reason for the return').fill('Damaged in transit');
      await returnForm.getByLabel('Returned now, row 2', { exact: true }).fill('0.125');
      await expectAccessible(page, 'the return form');
      // A phone: each row stands as a block, nothing wider than the panel.
      await page.setViewportSize({ width: 390, height: 900 });
      expect(await sticksOut(page), 'the panel at 390 px').toEqual([]);
      await expectAccessible(page, 'the return form on a phone');
      await page.setViewportSize({ width: 1400, height: 1000 });
      await returnForm.getByRole('button', { name: 'Record return' }).click();
      await eventually(() => listStatus(page).textContent()).toBe(`Recorded the return against ${secondNo}.`);
      await eventually(() => figures(page)).toEqual([
        ['1', cypermethrin, '10', '4', '0', '6'],
        ['2', urea, '2.5', '1.25', '0', '1.25'],
        ['3', urea, '7.125', '7.125', '0.125', '0.125'],
      ]);
      await eventually(() => deliveryRow(page, secondNo).locator('td').nth(3).textContent()).toBe(
        `Line 2, ${urea}: 1.25Line 3, ${urea}: 7.125 (0.125 returned)`,
      );

      // Goods came back against it: its cancel is refused in the clerk's words.
      await deliveryRow(page, secondNo).getByRole('button', { name: 'Cancel delivery' }).click();
      await page.getByLabel('Reason for cancelling the delivery').fill('Wrong truck');
      await page.getByRole('button', { name: 'Cancel this delivery' }).click();
      await eventually(() => listStatus(page).textContent()).toBe(
        'Goods came back against this delivery: it cannot be cancelled.',
      );
      expect(await listStatus(page).getAttribute('class')).toContain('problem');

      // The API's delivery is cancelled: line 1 is pending in full again.
      await page.getByRole('button', { name: 'Keep the delivery' }).click();
      await deliveryRow(page, first.delivery_no).getByRole('button', { name: 'Cancel delivery' }).click();
      await page.getByLabel('Reason for cancelling the delivery').fill('Sent to the wrong depot');
      await page.getByRole('button', { name: 'Cancel this delivery' }).click();
      await eventually(() => listStatus(page).textContent()).toBe(`Cancelled delivery ${first.delivery_no}.`);
      await eventually(() => figures(page)).toEqual([
        ['1', cypermethrin, '10', '0', '0', '10'],
        ['2', urea, '2.5', '1.25', '0', '1.25'],
        ['3', urea, '7.125', '7.125', '0.125', '0.125'],
      ]);
      await eventually(() => deliveryRow(page, first.delivery_no).locator('td').nth(2).textContent()).toBe(
        'Cancelled: Sent to the wrong depot',
      );
      expect(await deliveryRow(page, first.delivery_no).getByRole('button').count()).toBe(0);
      expect((await deliveriesOf(id)).map((delivery) => [delivery.delivery_no, delivery.status])).toEqual([
        [first.delivery_no, 'cancelled'],
        [secondNo, 'recorded'],
      ]);
      // The form holds the order's newest version: its heading and Save still work on it.
      await page.getByRole('button', { name: 'Save' }).click();
      await eventually(() => page.locator('#notice').textContent()).toBe(`Saved ${number}.`);

      await expectAccessible(page, 'the Deliveries panel after each action');
      expect(problems).toEqual([]);
      await context.close();
    });

    it('a draft shows no Deliveries panel; confirmed on the page, it shows the lines without asking for deliveries', async () => {
      const created = (
        await http()
          .post('/sales-orders')
          .send(orderBody(suite.fixtures, { customer_reference: 'PO-DRAFT' }))
          .expect(201)
      ).body.data as { order_number: string };
      const asked: string[] = [];
      const { context, page } = await chromium.open(
        {},
        {
          beforeLoad: (loading) =>
            void loading.on('request', (request) => {
              if (new URL(request.url()).pathname.endsWith('/deliveries')) asked.push(request.method());
            }),
        },
      );
      await openOrder(page, created.order_number);
      expect(await page.locator('section.deliveries').isHidden()).toBe(true);
      await page.locator('#acknowledge-warnings').check();
      await page.getByRole('button', { name: 'Confirm', exact: true }).click();
      await eventually(() => page.locator('#notice').textContent()).toBe(`Confirmed ${created.order_number}.`);
      await eventually(() => figures(page)).toEqual([
        ['1', suite.fixtures.products.product.name, '10', '0', '0', '10'],
        ['2', suite.fixtures.products.otherProduct.name, '2.5', '0', '0', '2.5'],
      ]);
      expect(await page.getByText('No deliveries recorded yet.').isVisible()).toBe(true);
      expect(asked).toEqual([]);
      await context.close();
    });
  },
);
