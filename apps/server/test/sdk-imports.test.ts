import { createSalesOrderClient, type Import } from '@sales-order/client';
import { describe, expect, it } from 'vitest';

import { ORDER_DATE } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';
import { signJwt } from './support/tokens.js';

/** The SDK's import methods against the real service: start, watch the progress, read every result. */
describe('SDK imports', () => {
  // Chunks of 5: progress moves several times over 30 orders.
  const suite = useServerWithFixtures({ IMPORT_CHUNK_SIZE: '5' });

  it('startImport sends the file, waitForImport reports progress until done, importResults yields each order', async () => {
    const f = suite.fixtures;
    const token = await signJwt({ payload: { permissions: ['*'] }, expiresIn: '10m' });
    const client = createSalesOrderClient({ baseUrl: suite.server.api, auth: { type: 'bearer', token } });
    const rows = Array.from(
      { length: 30 },
      (_, index) =>
        `sdk-${index},${f.customers.customer.id},${f.locations.dhaka.id},${ORDER_DATE},${f.products.otherProduct.id},${index === 17 ? 'x' : 1},10`,
    );
    const csv = ['order_ref,customer_id,location_id,sales_order_date,product_id,quantity,rate', ...rows].join('\n');

    const started = await client.startImport(csv, 'csv');
    expect(started).toMatchObject({ state: 'queued', orders_total: 30 });

    const seen: Import[] = [];
    const done = await client.waitForImport(started.import_id, { intervalMs: 50, onProgress: (p) => seen.push(p) });
    expect(done).toMatchObject({ state: 'completed', orders_created: 29, orders_failed: 1 });
    // Progress only ever moves forward, and was seen part-way at least once.
    const counts = seen.map((p) => p.orders_created + p.orders_failed);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(counts.some((count) => count > 0 && count < 30)).toBe(true);

    const results = [];
    for await (const result of client.importResults(started.import_id)) results.push(result);
    expect(results.map((r) => r.order_ref)).toEqual(rows.map((_, index) => `sdk-${index}`));
    expect(results[17]).toMatchObject({ status: 'failed', lines: [19], errors: [{ code: 'invalid_cell' }] });
    expect((await client.listImports()).items[0]!.import_id).toBe(started.import_id);

    // The same results as the files the service writes, to save as they are.
    const jsonLines = await client.downloadImportResults(started.import_id);
    expect(
      jsonLines
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual(results);
    const csvText = await client.downloadImportResults(started.import_id, 'csv');
    const csvLines = csvText.trimEnd().split('\n');
    expect(csvLines[0]).toBe('order_ref,lines,status,sales_order_id,order_number,errors');
    expect(csvLines).toHaveLength(31);
    expect(csvLines[18]).toMatch(/^sdk-17,19,failed,,,.*\[invalid_cell\]"?$/);
    await expect(client.downloadImportResults(999_999)).rejects.toMatchObject({ status: 404 });
  });
});
