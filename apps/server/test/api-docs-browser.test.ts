import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';

import { describeInChromium, useChromiumPage } from './support/chromium-page.js';
import { createApiKey } from './support/credentials.js';
import { orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';

/** The interactive reference at {BASE_PATH}/docs, used as a reader uses it, in Chromium. */
describeInChromium(
  "the API reference page in Chromium (needs Chromium: CHROMIUM_PATH or Debian's chromium package)",
  () => {
    const suite = useServerWithFixtures();
    const chromium = useChromiumPage(suite);

    /** Authorize with `value` in the API-key field, then run GET /sales-orders/{id} for order `id`; the status shown. */
    const tryGetOrder = async (page: Page, value: string, id: number): Promise<string> => {
      await page.goto(`${suite.server.api}/docs/`);
      await page.getByRole('button', { name: 'Authorize' }).first().click();
      const dialog = page.locator('.modal-ux');
      const apiKeySection = dialog.locator('.auth-container', { hasText: 'apiKeyAuth' });
      await apiKeySection.locator('input').fill(value);
      await apiKeySection.getByRole('button', { name: 'Apply credentials' }).click();
      await dialog.locator('button.btn-done').first().click();

      const operation = page.locator('#operations-Sales_orders-getSalesOrder');
      await operation.locator('.opblock-summary').click();
      await operation.getByRole('button', { name: 'Try it out' }).click();
      await operation.locator('input[placeholder="id"]').fill(String(id));
      await operation.getByRole('button', { name: 'Execute' }).click();
      return (
        await operation.locator('.live-responses-table .response .response-col_status').first().innerText()
      ).trim();
    };

    it('takes the API key as the CLI prints it, adding the ApiKey scheme; a key with the scheme works too; a wrong one is 401', async () => {
      const { key } = await createApiKey(suite.server.database.prisma, ['*']);
      const id = (await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201)).body.data
        .sales_order_id as number;
      const page = await chromium.browser.newPage();
      try {
        expect(await tryGetOrder(page, key, id)).toBe('200');
        expect(await tryGetOrder(page, `ApiKey ${key}`, id)).toBe('200');
        // Not a key at all: sent as it is, and refused.
        expect(await tryGetOrder(page, 'not-a-key', id)).toBe('401');
      } finally {
        await page.close();
      }
    }, 120_000);
  },
);
