import { describe, expect, it } from 'vitest';

import { ORDER_DATE, orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';
import { signJwt, TEST_SUBJECT } from './support/tokens.js';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** GET /sales-orders/{id}/history: the audit trail written with every change. */
describe('GET /sales-orders/{id}/history', () => {
  const suite = useServerWithFixtures();

  it('records a full lifecycle: create, two updates with line changes, delete; readable after the delete', async () => {
    const { customers, products, packsizes } = suite.fixtures;
    const http = suite.server.http;
    const id = (await http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201)).body.data
      .sales_order_id as number;

    // Update 1, by another subject: line 1 quantity changes, line 3 is added, remarks change.
    const editor = `Bearer ${await signJwt({ subject: 'clerk-7', payload: { permissions: ['*'] } })}`;
    await http
      .put(`/sales-orders/${id}`)
      .set('Authorization', editor)
      .send({
        remarks: 'Call before delivery',
        details: [
          {
            product_id: products.product.id,
            packsize_id: packsizes.packsize.id,
            quantity: 12,
            rate: 455.5,
            remarks: 'Cold chain',
          },
          { product_id: products.otherProduct.id, quantity: 2.5, rate: 1200 },
          { product_id: products.otherProduct.id, quantity: 1, rate: 0.125 },
        ],
      })
      .expect(200);
    // Update 2: line 2 is removed (lines renumber), the customer and the charges change.
    await http
      .put(`/sales-orders/${id}`)
      .send({
        customer_id: customers.otherCustomer.id,
        details: [
          {
            product_id: products.product.id,
            packsize_id: packsizes.packsize.id,
            quantity: 12,
            rate: 455.5,
            remarks: 'Cold chain',
          },
        ],
        other_charges: [
          { description: 'Carriage', amount: 400 },
          { description: 'Discount', amount: -100 },
        ],
      })
      .expect(200);
    // A refused update leaves no trace.
    await http.put(`/sales-orders/${id}`).send({ grand_total: 1 }).expect(422);
    await http.delete(`/sales-orders/${id}`).expect(200);
    await http.get(`/sales-orders/${id}`).expect(404);

    const response = await http.get(`/sales-orders/${id}/history`);
    expect(response.status).toBe(200);
    const { sales_order_id, entries } = response.body.data;
    expect(sales_order_id).toBe(id);
    expect(
      entries.map((entry: { version: number; action: string; by: string }) => [entry.version, entry.action, entry.by]),
    ).toEqual([
      [1, 'create', TEST_SUBJECT],
      [2, 'update', 'clerk-7'],
      [3, 'update', TEST_SUBJECT],
      [4, 'delete', TEST_SUBJECT],
    ]);
    for (const entry of entries) expect(entry.at).toMatch(TIMESTAMP);

    const [created, first, second, deleted] = entries;
    expect(created.changes).toEqual({
      fields: [
        { field: 'sales_order_no', from: null, to: 'DHK-2026-00001' },
        { field: 'customer_id', from: null, to: customers.customer.id },
        { field: 'sales_order_date', from: null, to: ORDER_DATE },
        { field: 'location_id', from: null, to: suite.fixtures.locations.dhaka.id },
        { field: 'financial_year_id', from: null, to: suite.fixtures.years.currentYear.id },
        { field: 'remarks', from: null, to: 'Deliver before Friday' },
      ],
      lines: {
        added: [
          {
            line_no: 1,
            product_id: products.product.id,
            packsize_id: packsizes.packsize.id,
            quantity: 10,
            rate: 455.5,
            amount: 4555,
            remarks: 'Cold chain',
          },
          {
            line_no: 2,
            product_id: products.otherProduct.id,
            packsize_id: null,
            quantity: 2.5,
            rate: 1200,
            amount: 3000,
            remarks: null,
          },
        ],
        removed: [],
        changed: [],
      },
      other_charges: { added: [{ line_no: 1, description: 'Carriage', amount: 350 }], removed: [], changed: [] },
      totals_before: null,
      totals_after: { subtotal: 7555, other_charges_total: 350, grand_total: 7905 },
    });
    expect(first.changes).toEqual({
      fields: [{ field: 'remarks', from: 'Deliver before Friday', to: 'Call before delivery' }],
      lines: {
        added: [
          {
            line_no: 3,
            product_id: products.otherProduct.id,
            packsize_id: null,
            quantity: 1,
            rate: 0.125,
            amount: 0.13,
            remarks: null,
          },
        ],
        removed: [],
        changed: [
          {
            line_no: 1,
            changes: [
              { field: 'quantity', from: 10, to: 12 },
              { field: 'amount', from: 4555, to: 5466 },
            ],
          },
        ],
      },
      other_charges: { added: [], removed: [], changed: [] },
      totals_before: { subtotal: 7555, other_charges_total: 350, grand_total: 7905 },
      totals_after: { subtotal: 8466.13, other_charges_total: 350, grand_total: 8816.13 },
    });
    expect(second.changes).toEqual({
      fields: [{ field: 'customer_id', from: customers.customer.id, to: customers.otherCustomer.id }],
      lines: {
        added: [],
        removed: [
          {
            line_no: 2,
            product_id: products.otherProduct.id,
            packsize_id: null,
            quantity: 2.5,
            rate: 1200,
            amount: 3000,
            remarks: null,
          },
          {
            line_no: 3,
            product_id: products.otherProduct.id,
            packsize_id: null,
            quantity: 1,
            rate: 0.125,
            amount: 0.13,
            remarks: null,
          },
        ],
        changed: [],
      },
      other_charges: {
        added: [{ line_no: 2, description: 'Discount', amount: -100 }],
        removed: [],
        changed: [{ line_no: 1, changes: [{ field: 'amount', from: 350, to: 400 }] }],
      },
      totals_before: { subtotal: 8466.13, other_charges_total: 350, grand_total: 8816.13 },
      totals_after: { subtotal: 5466, other_charges_total: 300, grand_total: 5766 },
    });
    expect(deleted.changes).toEqual({
      fields: [],
      lines: { added: [], removed: [], changed: [] },
      other_charges: { added: [], removed: [], changed: [] },
      totals_before: { subtotal: 5466, other_charges_total: 300, grand_total: 5766 },
      totals_after: { subtotal: 5466, other_charges_total: 300, grand_total: 5766 },
    });

    // Each entry's version and time are the order's own after that change.
    const listed = (
      await http.get('/sales-orders').query({ include_deleted: true, customer_id: customers.otherCustomer.id })
    ).body.data.items;
    const row = listed.find((item: { sales_order_id: number }) => item.sales_order_id === id);
    expect(row.version).toBe(4);
    expect(deleted.at).toBe(row.deleted_at);
  });

  it('answers 404 in the envelope for an id that never existed, and 400 for a malformed id', async () => {
    const missing = await suite.server.http.get('/sales-orders/2147483647/history');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ success: false, error: { code: 404 } });
    expect((await suite.server.http.get('/sales-orders/abc/history')).status).toBe(400);
  });

  it('writes the entry in the transaction of the change: a write whose entry cannot be stored is rolled back', async () => {
    const { prisma } = suite.server.database;
    const id = (await suite.server.http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201)).body.data
      .sales_order_id as number;
    // Version 2 already taken in the history: the update's entry collides, so the update must not stick.
    await prisma.$executeRaw`INSERT INTO sales_order_history (sales_order_id, version, action, at, changes) VALUES (${id}, 2, 'update', now(), '{}')`;
    const response = await suite.server.http.put(`/sales-orders/${id}`).send({ remarks: 'should not stay' });
    expect(response.status).toBe(500);
    const order = (await suite.server.http.get(`/sales-orders/${id}`).expect(200)).body.data;
    expect(order.version).toBe(1);
    expect(order.remarks).toBe('Deliver before Friday');
  });

  // Concurrent writers queue on the order's row lock: a second connection holds nothing here,
  // but the embedded database serves one connection, where nobody ever waits.
  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'stamps concurrent changes of one order in the order they commit: history at and updated_at never run backwards (needs TEST_DATABASE_URL)',
    async () => {
      const http = suite.server.http;
      const id = (await http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201)).body.data
        .sales_order_id as number;
      for (let round = 0; round < 4; round += 1) {
        const statuses = await Promise.all(
          Array.from({ length: 10 }, (_, writer) =>
            http
              .put(`/sales-orders/${id}`)
              .send({ remarks: `round ${round} writer ${writer}` })
              .then((response) => response.status),
          ),
        );
        expect(statuses.every((status) => status === 200)).toBe(true);
      }
      // Millisecond stamps from the table: the API's seconds would hide a step back.
      const entries = await suite.server.database.prisma.$queryRaw<{ version: number; at: Date }[]>`
        SELECT version, at FROM sales_order_history WHERE sales_order_id = ${id} ORDER BY version`;
      expect(entries).toHaveLength(41);
      const backwards = entries.filter((entry, index) => index > 0 && entry.at < entries[index - 1]!.at);
      expect(backwards.map((entry) => entry.version)).toEqual([]);
      const [order] = await suite.server.database.prisma.$queryRaw<{ updated_at: Date }[]>`
        SELECT updated_at FROM sales_orders WHERE id = ${id}`;
      expect(order!.updated_at).toEqual(entries.at(-1)!.at);
    },
  );

  it('pages the history: limit and cursor walk every entry once, in version order; a forged cursor is a 400', async () => {
    const http = suite.server.http;
    const id = (await http.post('/sales-orders').send(orderBody(suite.fixtures)).expect(201)).body.data
      .sales_order_id as number;
    for (let edit = 1; edit <= 6; edit += 1) {
      await http
        .put(`/sales-orders/${id}`)
        .send({ remarks: `edit ${edit}` })
        .expect(200);
    }
    const whole = (await http.get(`/sales-orders/${id}/history`).expect(200)).body.data;
    expect(whole.entries.map((entry: { version: number }) => entry.version)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(whole.next_cursor).toBeNull();

    const versions: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: Record<string, string | number> = { limit: 2, ...(cursor ? { cursor } : {}) };
      const page = (await http.get(`/sales-orders/${id}/history`).query(query).expect(200)).body.data;
      expect(page.entries.length).toBeLessThanOrEqual(2);
      versions.push(...page.entries.map((entry: { version: number }) => entry.version));
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor !== null);
    expect(versions).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(pages).toBe(4);

    for (const forged of ['not-a-cursor', 'eyJ2IjowfQ', 'eyJ2IjoiMSJ9', 'eyJ2IjoxLCJ4IjoxfQ']) {
      const response = await http.get(`/sales-orders/${id}/history`).query({ cursor: forged });
      expect(response.status, forged).toBe(400);
      expect(response.body.error.details[0].path).toBe('cursor');
    }
    for (const limit of ['0', '201', 'abc']) {
      expect((await http.get(`/sales-orders/${id}/history`).query({ limit })).status, limit).toBe(400);
    }
  });

  it('bounds a page in bytes: a 500-line order rewritten many times comes in pages of at most about 1 MB', async () => {
    const http = suite.server.http;
    const lines = (rate: number) =>
      Array.from({ length: 500 }, (_, index) => ({
        product_id: suite.fixtures.products.otherProduct.id,
        quantity: index + 1,
        rate,
        remarks: `line ${index + 1} of rewrite ${rate} ${'x'.repeat(200)}`,
      }));
    const id = (
      await http
        .post('/sales-orders')
        .send(orderBody(suite.fixtures, { details: lines(1) }))
        .expect(201)
    ).body.data.sales_order_id as number;
    for (let rewrite = 2; rewrite <= 12; rewrite += 1) {
      await http
        .put(`/sales-orders/${id}`)
        .send({ details: lines(rewrite) })
        .expect(200);
    }
    const [{ bytes }] = await suite.server.database.prisma.$queryRaw<[{ bytes: number }]>`
      SELECT sum(octet_length(changes::text))::int AS bytes FROM sales_order_history WHERE sales_order_id = ${id}`;
    expect(bytes).toBeGreaterThan(2_000_000);

    const pages: { version: number }[][] = [];
    let cursor: string | null = null;
    do {
      const response: { text: string; body: { data: { entries: { version: number }[]; next_cursor: string | null } } } =
        await http
          .get(`/sales-orders/${id}/history`)
          .query(cursor ? { cursor } : {})
          .expect(200);
      pages.push(response.body.data.entries);
      // The changes of a page, as JSON, stay within the bound (with the first entry always there).
      expect(response.text.length).toBeLessThan(1_100_000);
      cursor = response.body.data.next_cursor;
    } while (cursor !== null);
    expect(pages.length).toBeGreaterThan(2);
    expect(pages.flat().map((entry) => entry.version)).toEqual(Array.from({ length: 12 }, (_, index) => index + 1));
  });
});
