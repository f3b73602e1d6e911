import type { Locator, Page } from 'playwright-core';
import { expect, it } from 'vitest';

import { Decimal } from '../src/shared/money.js';
import { describeInChromium, expectAccessible, useChromiumPage } from './support/chromium-page.js';
import { ORDER_DATE, orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';

/**
 * A change to a confirmed order on the order entry page, in a real Chromium against the real
 * server: "Change this order" unlocks the lines, "Preview change" opens the change and shows the
 * difference and the totals before and after, "Apply change" applies it (read back through the
 * API), a quantity below what was delivered is refused in the clerk's words at its line, and a
 * licence warning of the change is shown before Apply, which then waits for the clerk's tick.
 */
const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 15_000, interval: 100 });

/** Money as the page writes it in en-US: two decimals, grouped by thousands. */
const money = (value: Decimal) => value.toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
/** A line's amount as the service prices it: quantity × rate, half-up to cents. */
const amountOf = (quantity: string, rate: string) =>
  new Decimal(quantity).times(rate).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);

describeInChromium(
  "order entry page: changing a confirmed order in Chromium (needs Chromium: CHROMIUM_PATH or Debian's chromium package)",
  () => {
    const suite = useServerWithFixtures({ ORDER_ENTRY_PAGE: 'true' });
    const http = () => suite.server.http;
    const chromium = useChromiumPage(suite);

    /** The page signed in as a clerk with every permission, loaded, with its script and CSP problems collected. */
    const openPage = () => chromium.open({ session: { userId: 'clerk-changes' } });

    const openOrder = async (page: Page, number: string) => {
      await page.getByLabel('Search orders').fill(number);
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByRole('button', { name: number, exact: true }).click();
      await eventually(() => page.locator('#list-status').textContent()).toBe(`Opened ${number}.`);
    };

    const line = (page: Page, n: number) => page.getByRole('group', { name: `Line ${n}`, exact: true });
    const changeStatus = (page: Page) => page.locator('#change-status');
    /** The text of the element that describes a control (its error slot, by aria-describedby). */
    const descriptionOf = async (control: Locator) =>
      control
        .page()
        .locator(`[id="${(await control.getAttribute('aria-describedby')) ?? ''}"]`)
        .textContent();
    /** A table's body rows as their cells' texts. */
    const rowsOf = (table: Locator) =>
      table
        .locator('tbody tr')
        .evaluateAll((rows) =>
          rows.map((row) =>
            Array.from(
              (row as unknown as { cells: ArrayLike<{ textContent: string }> }).cells,
              (cell) => cell.textContent,
            ),
          ),
        );

    /** A confirmed order of Urea (no licence needed) in the lines given, made through the API. */
    const confirmedOrder = async (reference: string, lines: { quantity: string; rate: string }[]) =>
      (
        await http()
          .post('/sales-orders')
          .send(
            orderBody(suite.fixtures, {
              customer_reference: reference,
              status: 'confirmed',
              details: lines.map((typed) => ({
                product_id: suite.fixtures.products.otherProduct.id,
                quantity: +typed.quantity,
                rate: +typed.rate,
              })),
            }),
          )
          .expect(201)
      ).body.data as { sales_order_id: number; order_number: string };

    it('edits a quantity and a rate as a change: the preview shows the difference and totals, Apply changes the order', async () => {
      const urea = suite.fixtures.products.otherProduct;
      const lines = [
        { quantity: '10', rate: '120' },
        { quantity: '4', rate: '75.5' },
      ];
      const created = await confirmedOrder('PO-CHANGE', lines);
      const id = created.sales_order_id;
      const before = (await http().get(`/sales-orders/${id}`).expect(200)).body.data;
      expect(before.status).toBe('confirmed');

      const { page, problems, context } = await openPage();
      await openOrder(page, created.order_number);
      expect(await line(page, 1).getByLabel('Quantity').isDisabled()).toBe(true);
      await page.getByRole('button', { name: 'Change this order' }).click();
      await eventually(() => line(page, 1).getByLabel('Quantity').isDisabled()).toBe(false);
      // The header and Save wait while the lines change.
      expect(await page.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
      expect(await page.getByLabel('Remarks').isDisabled()).toBe(true);

      const after = [
        { quantity: '12.5', rate: '120' },
        { quantity: '4', rate: '80.25' },
      ];
      await line(page, 1).getByLabel('Quantity').fill(after[0]!.quantity);
      await line(page, 2).getByLabel('Rate').fill(after[1]!.rate);
      await page.getByLabel('Reason for the change').fill('Customer wants more, at the new price');
      await page.getByRole('button', { name: 'Preview change' }).click();
      await eventually(() => changeStatus(page).textContent()).toBe(
        'Check the change below, then apply or discard it.',
      );

      const preview = page.getByRole('region', { name: 'Preview of the change' });
      const amountsBefore = lines.map((typed) => amountOf(typed.quantity, typed.rate));
      const amountsAfter = after.map((typed) => amountOf(typed.quantity, typed.rate));
      expect(await rowsOf(preview.getByRole('table', { name: 'What the change does' }))).toEqual([
        [
          'Line 1',
          urea.name,
          `${lines[0]!.quantity} → ${after[0]!.quantity}`,
          lines[0]!.rate,
          `${money(amountsBefore[0]!)} → ${money(amountsAfter[0]!)}`,
          '0',
        ],
        [
          'Line 2',
          urea.name,
          lines[1]!.quantity,
          `${lines[1]!.rate} → ${after[1]!.rate}`,
          `${money(amountsBefore[1]!)} → ${money(amountsAfter[1]!)}`,
          '0',
        ],
      ]);
      const charges = new Decimal(350);
      const subtotalBefore = amountsBefore[0]!.plus(amountsBefore[1]!);
      const subtotalAfter = amountsAfter[0]!.plus(amountsAfter[1]!);
      expect(await rowsOf(preview.getByRole('table', { name: 'Totals before and after' }))).toEqual([
        ['Subtotal', money(subtotalBefore), money(subtotalAfter)],
        ['Other charges total', money(charges), money(charges)],
        ['Grand total', money(subtotalBefore.plus(charges)), money(subtotalAfter.plus(charges))],
      ]);
      // Urea needs no licence: no warnings, nothing to acknowledge.
      expect(await preview.getByRole('list', { name: 'Licence warnings of the change' }).count()).toBe(0);
      // Previewed only: the order is as it was, its lines locked again on the page.
      expect((await http().get(`/sales-orders/${id}`).expect(200)).body.data.version).toBe(before.version);
      expect(await line(page, 1).getByLabel('Quantity').isDisabled()).toBe(true);
      await expectAccessible(page, 'the preview of a change');

      await preview.getByRole('button', { name: 'Apply change' }).click();
      await eventually(() => changeStatus(page).textContent()).toBe(
        `Change applied: ${created.order_number} now reads as previewed.`,
      );
      const applied = (await http().get(`/sales-orders/${id}`).expect(200)).body.data;
      expect(applied).toMatchObject({ status: 'confirmed', version: before.version + 1 });
      expect(
        applied.details.map((detail: { quantity: number; rate: number; amount: number }) => [
          String(detail.quantity),
          String(detail.rate),
          money(new Decimal(detail.amount)),
        ]),
      ).toEqual(after.map((typed, n) => [typed.quantity, typed.rate, money(amountsAfter[n]!)]));
      expect(money(new Decimal(applied.grand_total))).toBe(money(subtotalAfter.plus(charges)));
      // The form shows the order as applied: its total, its lines locked, the change in its history.
      await eventually(() => page.getByLabel('Grand total', { exact: true }).textContent()).toBe(
        money(subtotalAfter.plus(charges)),
      );
      expect(await line(page, 1).getByLabel('Quantity').inputValue()).toBe(after[0]!.quantity);
      expect(await line(page, 1).getByLabel('Quantity').isDisabled()).toBe(true);
      await eventually(() => page.getByRole('list', { name: 'History' }).locator('li').first().textContent()).toContain(
        'Changed after confirming',
      );

      // A delivery of 5 on line 1; then a change to 3 is refused at that line, in the clerk's words.
      const detailId = applied.details[0].sales_order_detail_id as number;
      await http()
        .post(`/sales-orders/${id}/deliveries`)
        .send({ delivery_date: ORDER_DATE, lines: [{ sales_order_detail_id: detailId, quantity: 5 }] })
        .expect(201);
      // The delivery moves the order's version: the page reads the order again.
      const delivered = (await http().get(`/sales-orders/${id}`).expect(200)).body.data;
      await openOrder(page, created.order_number);
      await page.getByRole('button', { name: 'Change this order' }).click();
      const quantity = line(page, 1).getByLabel('Quantity');
      await quantity.fill('3');
      await page.getByLabel('Reason for the change').fill('Customer wants less');
      await page.getByRole('button', { name: 'Preview change' }).click();
      const refusal = 'The quantity cannot go below what was delivered on that line';
      await eventually(() => changeStatus(page).textContent()).toBe(`${refusal}.`);
      expect(await quantity.getAttribute('aria-invalid')).toBe('true');
      expect(await descriptionOf(quantity)).toBe(refusal);
      expect(await page.locator('#order').textContent()).not.toMatch(/quantity_below_delivered|details\.\d/);
      // Nothing was opened: the order's only change is the applied one.
      const changes = (await http().get(`/sales-orders/${id}/changes`).expect(200)).body.data.changes;
      expect(changes.map((change: { status: string }) => change.status)).toEqual(['applied']);
      await expectAccessible(page, 'a refused change');

      // Within what was delivered it previews; Discard ends the change and leaves the order as it is.
      await quantity.fill('6');
      await page.getByRole('button', { name: 'Preview change' }).click();
      await eventually(() => changeStatus(page).textContent()).toBe(
        'Check the change below, then apply or discard it.',
      );
      expect(await rowsOf(preview.getByRole('table', { name: 'What the change does' }))).toEqual([
        [
          'Line 1',
          urea.name,
          `${after[0]!.quantity} → 6`,
          after[0]!.rate,
          `${money(amountsAfter[0]!)} → ${money(amountOf('6', after[0]!.rate))}`,
          '5',
        ],
      ]);
      await preview.getByRole('button', { name: 'Discard change' }).click();
      await eventually(() => changeStatus(page).textContent()).toMatch(/^Change discarded: the order is as it was\./);
      const ended = (await http().get(`/sales-orders/${id}/changes`).expect(200)).body.data.changes;
      expect(ended.map((change: { status: string }) => change.status)).toEqual(['discarded', 'applied']);
      expect((await http().get(`/sales-orders/${id}`).expect(200)).body.data).toMatchObject({
        version: delivered.version,
        grand_total: applied.grand_total,
      });
      expect(problems).toEqual([]);
      await context.close();
    }, 120_000);

    it("a line added of a product without a licence: the preview warns in the clerk's words, Apply waits for the tick", async () => {
      const licensed = suite.fixtures.products.product;
      const created = await confirmedOrder('PO-CHANGE-LICENCE', [{ quantity: '3', rate: '100' }]);
      const { page, problems, context } = await openPage();
      await openOrder(page, created.order_number);
      await page.getByRole('button', { name: 'Change this order' }).click();
      await page.getByRole('button', { name: 'Add line' }).click();
      const added = line(page, 2);
      await added.getByLabel('Product', { exact: true }).fill(licensed.name);
      await added.getByLabel('Quantity').fill('2');
      await added.getByLabel('Rate').fill('455.5');
      await page.getByLabel('Reason for the change').fill('Customer adds a pesticide');
      await page.getByRole('button', { name: 'Preview change' }).click();
      await eventually(() => changeStatus(page).textContent()).toBe(
        'Check the change below, then apply or discard it.',
      );

      const preview = page.getByRole('region', { name: 'Preview of the change' });
      expect(await rowsOf(preview.getByRole('table', { name: 'What the change does' }))).toEqual([
        ['New line', licensed.name, '— → 2', '— → 455.5', `— → ${money(amountOf('2', '455.5'))}`, '0'],
      ]);
      expect(await preview.getByRole('list', { name: 'Licence warnings of the change' }).textContent()).toBe(
        `${licensed.name}: Needs a licence, and none is valid on the order date`,
      );
      await expectAccessible(page, 'a preview with a licence warning');

      // Apply without the tick is refused, and asks for it; with it, the line is added.
      const tick = preview.getByLabel('Apply despite the licence warnings');
      await preview.getByRole('button', { name: 'Apply change' }).click();
      await eventually(() => changeStatus(page).textContent()).toBe(
        "Not applied: tick 'Apply despite the licence warnings' to apply it despite them.",
      );
      expect(await tick.getAttribute('aria-invalid')).toBe('true');
      expect((await http().get(`/sales-orders/${created.sales_order_id}`).expect(200)).body.data.details).toHaveLength(
        1,
      );
      await tick.check();
      await preview.getByRole('button', { name: 'Apply change' }).click();
      await eventually(() => changeStatus(page).textContent()).toBe(
        `Change applied: ${created.order_number} now reads as previewed.`,
      );
      const applied = (await http().get(`/sales-orders/${created.sales_order_id}`).expect(200)).body.data;
      expect(
        applied.details.map((detail: { product_id: number; quantity: number }) => [detail.product_id, detail.quantity]),
      ).toEqual([
        [suite.fixtures.products.otherProduct.id, 3],
        [licensed.id, 2],
      ]);
      expect(problems).toEqual([]);
      await context.close();
    }, 120_000);
  },
);
