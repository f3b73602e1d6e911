import { DROPDOWN_LIMIT_DEFAULT, DROPDOWN_LIMIT_MAX } from '@sales-order/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { answeredOtherwiseAfter, callUntil, eventually } from './support/eventually.js';
import { parseOptions } from './support/option-html.js';
import { startTestServer, type TestServer } from './support/test-server.js';

const productOptions = async (server: TestServer, query: Record<string, string | number> = {}) => {
  const response = await server.http.get('/sales-orders/dropdown-options/products').query(query);
  expect(response.status).toBe(200);
  return parseOptions(response.body.data.html);
};
const productNames = async (server: TestServer) => (await productOptions(server)).map((option) => option.text);

describe.skipIf(!process.env.TEST_DATABASE_URL)(
  'dropdown cache with change notifications (needs TEST_DATABASE_URL: LISTEN)',
  () => {
    let server: TestServer;

    beforeAll(async () => {
      // Far longer than any wait below: a change seen in time was seen through NOTIFY.
      server = await startTestServer({ MASTER_DATA_CACHE_TTL_MS: '3600000' });
    });
    afterAll(() => server?.close());

    it('shows a product inserted, renamed and deactivated by the host with SQL in the next calls', async () => {
      const { prisma } = server.database;
      expect(await productNames(server)).not.toContain('Aardvark Feed');
      const [{ id }] = await prisma.$queryRaw<[{ id: number }]>`
      INSERT INTO products (code, name) VALUES ('HOST-1', 'Aardvark Feed') RETURNING id`;
      await eventually(async () => (await productNames(server)).includes('Aardvark Feed'), 60_000);

      await prisma.$executeRaw`UPDATE products SET name = 'Aardvark Feed Plus' WHERE id = ${id}`;
      await eventually(async () => (await productNames(server)).includes('Aardvark Feed Plus'), 60_000);
      expect(await productNames(server)).not.toContain('Aardvark Feed');

      await prisma.$executeRaw`UPDATE products SET active = false WHERE id = ${id}`;
      await eventually(async () => !(await productNames(server)).includes('Aardvark Feed Plus'), 60_000);
    });
  },
);

describe('dropdown cache without change notifications', () => {
  let server: TestServer;
  // Long enough that "still the kept list right after" holds on a loaded machine; the bounds below
  // stay far under the default TTL (60 s), so a TTL setting ignored still fails.
  const TTL_MS = 3_000;

  beforeAll(async () => {
    server = await startTestServer({ MASTER_DATA_CACHE_TTL_MS: String(TTL_MS) });
    // A lost notice, as while the listening connection is down.
    await server.database.prisma.$executeRaw`ALTER TABLE ports DISABLE TRIGGER ports_notify_change`;
  });
  afterAll(() => server?.close());

  it('keeps a type for at most MASTER_DATA_CACHE_TTL_MS', async () => {
    const names = async () =>
      parseOptions((await server.http.get('/sales-orders/dropdown-options/ports').expect(200)).body.data.html).map(
        (option) => option.text,
      );
    // The list is kept no earlier than this first read was sent.
    const firstReadSent = Date.now();
    await names();
    await server.database.prisma.$executeRaw`INSERT INTO ports (code, name) VALUES ('LATE', 'Late Port')`;
    const insertedAt = Date.now();
    // Still the kept list right after (nothing told the service), when answered inside the TTL
    // of the first read: a loaded machine may take longer, and then proves nothing here.
    const rightAfter = await names();
    if (Date.now() < firstReadSent + TTL_MS) expect(rightAfter).not.toContain('Late Port');
    // ...and read again once the TTL has run out: no read sent after it (and a margin for the
    // clocks of two processes) answers the old list. Judged by when each read was sent.
    const reads = await callUntil(async () => ((await names()).includes('Late Port') ? 1 : 0), 1);
    expect(answeredOtherwiseAfter(reads, insertedAt, TTL_MS + 1_000)).toEqual([]);
  });
});

describe('dropdown over 50,000 products', () => {
  let server: TestServer;
  let lastByName: { id: number; name: string };

  beforeAll(async () => {
    server = await startTestServer();
    const { prisma } = server.database;
    await prisma.$executeRaw`
      INSERT INTO products (code, name)
      SELECT 'BULK-' || n, 'Bulk Product ' || lpad(n::text, 5, '0') FROM generate_series(1, 50000) AS n`;
    [lastByName] = await prisma.$queryRaw<[{ id: number; name: string }]>`
      SELECT id, name FROM products WHERE active ORDER BY name DESC, id DESC LIMIT 1`;
  }, 60_000);
  afterAll(() => server?.close());

  it(`answers the first ${DROPDOWN_LIMIT_DEFAULT} by name, says more exist, and stays small`, async () => {
    const response = await server.http.get('/sales-orders/dropdown-options/products');
    expect(response.status).toBe(200);
    expect(response.body.data.truncated).toBe(true);
    const options = parseOptions(response.body.data.html);
    expect(options).toHaveLength(DROPDOWN_LIMIT_DEFAULT);
    const names = options.map((option) => option.text);
    expect(names).toEqual([...names].sort());
    expect(response.text.length).toBeLessThan(100_000);
  });

  it('honours limit up to its maximum and refuses more', async () => {
    expect(await productOptions(server, { limit: 10 })).toHaveLength(10);
    expect(await productOptions(server, { limit: DROPDOWN_LIMIT_MAX })).toHaveLength(DROPDOWN_LIMIT_MAX);
    for (const limit of [0, DROPDOWN_LIMIT_MAX + 1, 'many']) {
      const response = await server.http.get('/sales-orders/dropdown-options/products').query({ limit });
      expect(response.status, String(limit)).toBe(400);
      expect(response.body.error.details, String(limit)).toEqual([expect.objectContaining({ path: 'limit' })]);
    }
  });

  it('includes the selected record, in its sorted place, even past the limit', async () => {
    const options = await productOptions(server, { limit: 5, selected_id: lastByName.id });
    expect(options).toHaveLength(6);
    expect(options[5]).toEqual({ value: String(lastByName.id), text: lastByName.name, selected: true });
    expect(options.filter((option) => option.selected)).toHaveLength(1);
  });

  it('reaches any record through q (case-insensitive part of the name), with the selected one kept', async () => {
    const response = await server.http
      .get('/sales-orders/dropdown-options/products')
      .query({ q: 'product 4999', selected_id: lastByName.id });
    const options = parseOptions(response.body.data.html);
    expect(response.body.data.truncated).toBe(false);
    expect(options.map((option) => option.text)).toEqual([
      ...Array.from({ length: 10 }, (_, digit) => `Bulk Product 4999${digit}`),
      lastByName.name,
    ]);
  });
});
