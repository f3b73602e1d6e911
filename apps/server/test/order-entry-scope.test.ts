import { expect, it } from 'vitest';

import { describeInChromium, useChromiumPage } from './support/chromium-page.js';
import { orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';

/**
 * The order entry page for a clerk whose host session is scoped to one location (the host wrote
 * `locations = {DHK}` in its sessions table): the Location control offers only Dhaka, and the
 * list shows only Dhaka's orders, though Chattogram's exist.
 */

const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 30_000, interval: 100 });

describeInChromium(
  "order entry page for a scoped clerk (needs Chromium: CHROMIUM_PATH or Debian's chromium package)",
  () => {
    const suite = useServerWithFixtures({ ORDER_ENTRY_PAGE: 'true' });
    const chromium = useChromiumPage(suite);

    it("offers only the session's location and lists only its orders", async () => {
      const { dhaka, chattogram } = suite.fixtures.locations;
      const made: Record<string, string> = {};
      for (const location of [dhaka, chattogram]) {
        const created = await suite.server.http
          .post('/sales-orders')
          .send(orderBody(suite.fixtures, { location_id: location.id }))
          .expect(201);
        made[location.code] = created.body.data.order_number as string;
      }
      const { context, page } = await chromium.open({ session: { userId: 'dhaka-clerk', locations: ['DHK'] } });

      const location = page.getByLabel('Location', { exact: true });
      await eventually(() => location.locator('option').count()).toBeGreaterThan(0);
      const offered = (await location.locator('option').allTextContents()).filter(
        (text) => text.trim() !== '' && !/choose/i.test(text),
      );
      expect(offered).toEqual(['Dhaka']);

      const rows = page.getByRole('table', { name: 'Orders' }).locator('tbody tr');
      await eventually(() => rows.count()).toBeGreaterThan(0);
      const listed = await rows.allTextContents();
      expect(listed.join('\n')).toContain(made.DHK);
      expect(listed.join('\n')).not.toContain(made.CTG);
      await context.close();
    });
  },
);
