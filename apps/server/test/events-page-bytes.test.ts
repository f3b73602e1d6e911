import { EVENTS_PAGE_MAX_BYTES, MAX_DETAIL_LINES, type SalesOrderEvent } from '@sales-order/contract';
import { describe, expect, it } from 'vitest';

import { orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';

interface Page {
  items: SalesOrderEvent[];
  next_cursor: string;
  has_more: boolean;
}

/**
 * GET /events pages are bounded by bytes as well as by count: before, a
 * 500-line order with long line remarks updated a few hundred times made `limit=500` a statement
 * timeout on every retry, and `limit=200` 115 MB.
 */
describe('events: a page is bounded by the bytes of its events', () => {
  const suite = useServerWithFixtures();

  it('a page of big events ends early with its cursor; the next page goes on from there; every event comes once', async () => {
    const { http } = suite.server;
    // 500 lines with 1000-character remarks: an event of about 600 KB.
    const line = (index: number) => ({
      product_id: suite.fixtures.products.product.id,
      quantity: 1,
      rate: 10,
      remarks: `${index}`.padEnd(1000, 'x'),
    });
    const details = Array.from({ length: MAX_DETAIL_LINES }, (_, index) => line(index));
    const id = (await http.post('/sales-orders').send(orderBody(suite.fixtures, { details })).expect(201)).body.data
      .sales_order_id as number;
    for (const remarks of ['second', 'third', 'fourth']) {
      await http.put(`/sales-orders/${id}`).send({ remarks }).expect(200);
    }
    await suite.server.events.relay.runOnce();

    const read = async (after?: string) => {
      const response = await http
        .get('/events')
        .query({ sales_order_id: id, limit: 500, ...(after ? { after } : {}) })
        .expect(200);
      return { page: response.body.data as Page, bytes: Buffer.byteLength(response.text) };
    };
    const versions: number[] = [];
    let after: string | undefined;
    for (let call = 0; call < 10; call += 1) {
      const { page, bytes } = await read(after);
      expect(page.items.length).toBeGreaterThan(0);
      // One event of about 600 KB fits; two would pass the bound.
      expect(page.items).toHaveLength(1);
      expect(bytes).toBeLessThan(EVENTS_PAGE_MAX_BYTES + 10_000);
      versions.push(...page.items.map((event) => event.version));
      after = page.next_cursor;
      if (!page.has_more) break;
    }
    expect(versions).toEqual([1, 2, 3, 4]);
    // The last page said so, and its cursor resumes after the last event.
    expect((await read(after)).page.items).toEqual([]);
  }, 120_000);

  it('an event bigger than the bound on its own is still delivered, alone on its page', async () => {
    const { http } = suite.server;
    // 500 lines of 1000 two-byte characters of remarks: an event over 1 MB (checked below).
    const details = Array.from({ length: MAX_DETAIL_LINES }, (_, index) => ({
      product_id: suite.fixtures.products.product.id,
      quantity: 1,
      rate: 10,
      remarks: `${index}`.padEnd(1000, 'é'),
    }));
    const id = (await http.post('/sales-orders').send(orderBody(suite.fixtures, { details })).expect(201)).body.data
      .sales_order_id as number;
    await http.put(`/sales-orders/${id}`).send({ remarks: 'again' }).expect(200);
    await suite.server.events.relay.runOnce();
    const response = await http.get('/events').query({ sales_order_id: id, limit: 10 }).expect(200);
    const page = response.body.data as Page;
    expect(Buffer.byteLength(JSON.stringify(page.items[0]!.data))).toBeGreaterThan(EVENTS_PAGE_MAX_BYTES);
    expect(page.items.map((event) => event.version)).toEqual([1]);
    expect(page.has_more).toBe(true);
    const next = (
      await http.get('/events').query({ sales_order_id: id, limit: 10, after: page.next_cursor }).expect(200)
    ).body.data as Page;
    expect(next.items.map((event) => event.version)).toEqual([2]);
    expect(next.has_more).toBe(false);
  }, 120_000);
});
