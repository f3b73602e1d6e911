import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createFixtures, type Fixtures, orderBody } from './support/fixtures.js';
import { type QueryCountingServer, startQueryCountingServer } from './support/query-counting-server.js';

/**
 * The statements each request sends, counted at the Prisma client of the running service:
 * reading and writing an order must cost the same whatever its line count.
 */
describe('query shape', () => {
  let server: QueryCountingServer;
  let fixtures: Fixtures;

  beforeAll(async () => {
    server = await startQueryCountingServer();
    fixtures = await createFixtures(server.database.prisma);
  });
  afterAll(() => server?.close());

  const lines = (count: number) =>
    Array.from({ length: count }, (_, index) => ({
      product_id: index % 2 === 0 ? fixtures.products.product.id : fixtures.products.otherProduct.id,
      packsize_id: index % 2 === 0 ? fixtures.packsizes.packsize.id : fixtures.packsizes.otherPacksize.id,
      quantity: index + 1,
      rate: 2.5,
    }));
  const charges = (count: number) =>
    Array.from({ length: count }, (_, index) => ({ description: `Fee ${index}`, amount: 1 }));

  const statementsOf = (call: () => PromiseLike<unknown>) => server.queriesDuring(call);

  it.each([
    { case: 'server numbering', salesOrderNo: () => undefined, transaction: false },
    {
      case: 'a free-form number',
      salesOrderNo: (lineCount: number) => `PO-${lineCount}-${Date.now()}`,
      transaction: false,
    },
    // Refused after its statement when too far ahead of the counter: that needs a rollback.
    { case: 'a series number', salesOrderNo: (lineCount: number) => `DHK-2026-${100 + lineCount}`, transaction: true },
  ])('creates with the same statements for 1, 5 or 500 lines ($case)', async ({ salesOrderNo, transaction }) => {
    const counted: string[][] = [];
    // One at a time: the counting server counts whatever runs meanwhile.
    for (const lineCount of [1, 5, 500]) {
      counted.push(
        await statementsOf(() =>
          server.http
            .post('/sales-orders')
            .send(
              orderBody(fixtures, {
                sales_order_no: salesOrderNo(lineCount),
                details: lines(lineCount),
                other_charges: charges(lineCount === 500 ? 20 : 1),
              }),
            )
            .expect(201),
        ),
      );
    }
    const [one, five, fiveHundred] = counted as [string[], string[], string[]];
    expect(five).toHaveLength(one.length);
    expect(fiveHundred).toHaveLength(one.length);
    // The references in one statement, then the order with its number, lines, charges and
    // history in one: its own transaction, no BEGIN or COMMIT round trip, unless it may have
    // to be rolled back after it.
    // (Prisma reports a transaction's COMMIT as a query, not its BEGIN.)
    const transactionControl = fiveHundred.filter((sql) => /^(BEGIN|COMMIT)/i.test(sql.trim()));
    expect(transactionControl).toEqual(transaction ? ['COMMIT'] : []);
    expect(fiveHundred).toHaveLength(2 + transactionControl.length);
    expect(fiveHundred.filter((sql) => /INSERT INTO \S*sales_order_details/.test(sql))).toHaveLength(1);
    expect(fiveHundred.filter((sql) => /INSERT INTO \S*sales_order_other_charges/.test(sql))).toHaveLength(1);
    expect(fiveHundred.filter((sql) => /FROM \S*products/.test(sql))).toHaveLength(1);
    expect(fiveHundred.filter((sql) => /FROM \S*packsizes/.test(sql))).toHaveLength(1);
  });

  it('reads with the same statements whatever the line count', async () => {
    const smallId = (
      await server.http
        .post('/sales-orders')
        .send(orderBody(fixtures, { details: lines(1) }))
        .expect(201)
    ).body.data.sales_order_id;
    const largeId = (
      await server.http
        .post('/sales-orders')
        .send(orderBody(fixtures, { details: lines(250) }))
        .expect(201)
    ).body.data.sales_order_id;
    const small = await statementsOf(() => server.http.get(`/sales-orders/${smallId}`).expect(200));
    const large = await statementsOf(() => server.http.get(`/sales-orders/${largeId}`).expect(200));
    expect(large.length).toBe(small.length);
    expect(large.length).toBeGreaterThan(0);
    expect(large.length).toBeLessThanOrEqual(5);
  });

  it('updates with the same statements for 1 line or 300 lines', async () => {
    const id = (await server.http.post('/sales-orders').send(orderBody(fixtures)).expect(201)).body.data.sales_order_id;
    const small = await statementsOf(() =>
      server.http
        .put(`/sales-orders/${id}`)
        .send({ details: lines(1), other_charges: charges(2) })
        .expect(200),
    );
    const large = await statementsOf(() =>
      server.http
        .put(`/sales-orders/${id}`)
        .send({ details: lines(300), other_charges: charges(30) })
        .expect(200),
    );
    expect(large.length).toBe(small.length);
    expect(large.filter((sql) => /INSERT INTO \S*sales_order_details/.test(sql))).toHaveLength(1);
    // Lock, lines and charges before, references, header with history, contents, the event, and
    // the order read back for the answer's ETag.
    expect(large.filter((sql) => !/^(BEGIN|COMMIT)/i.test(sql.trim()))).toHaveLength(7);
  });

  it("with an Idempotency-Key, a create or a transition adds the key's look-up, claim and result: one statement each", async () => {
    const isKey = (sql: string) => /idempotency_keys/.test(sql);
    const plain = await statementsOf(() => server.http.post('/sales-orders').send(orderBody(fixtures)).expect(201));
    const key = `shape-${Date.now()}`;
    const keyed = await statementsOf(() =>
      server.http.post('/sales-orders').set('Idempotency-Key', key).send(orderBody(fixtures)).expect(201),
    );
    expect(keyed.filter(isKey)).toHaveLength(3);
    // The order's own statements, the key's, and the COMMIT of the transaction the claim needs.
    expect(keyed).toHaveLength(plain.length + 3 + 1);
    const replayed = await statementsOf(() =>
      server.http.post('/sales-orders').set('Idempotency-Key', key).send(orderBody(fixtures)).expect(201),
    );
    expect(replayed).toHaveLength(1);

    const ids = await Promise.all(
      [1, 2].map(
        async () =>
          (await server.http.post('/sales-orders').send(orderBody(fixtures)).expect(201)).body.data.sales_order_id,
      ),
    );
    const cancel = (id: number, headers: Record<string, string> = {}) =>
      statementsOf(() =>
        server.http.post(`/sales-orders/${id}/cancel`).set(headers).send({ reason: 'shape' }).expect(200),
      );
    const plainCancel = await cancel(ids[0]);
    const keyedCancel = await cancel(ids[1], { 'Idempotency-Key': `${key}-cancel` });
    expect(keyedCancel.filter(isKey)).toHaveLength(3);
    expect(keyedCancel).toHaveLength(plainCancel.length + 3);
  });

  it('lists a page with one statement (two with include_total), whatever the page size or filters', async () => {
    for (let index = 0; index < 3; index += 1)
      await server.http.post('/sales-orders').send(orderBody(fixtures)).expect(201);
    const small = await statementsOf(() => server.http.get('/sales-orders').query({ limit: 1 }).expect(200));
    const large = await statementsOf(() =>
      server.http
        .get('/sales-orders')
        .query({ limit: 200, q: 'friday', product_id: fixtures.products.product.id, sort: 'grand_total' })
        .expect(200),
    );
    const counted = await statementsOf(() =>
      server.http.get('/sales-orders').query({ include_total: true }).expect(200),
    );
    expect(small.filter((sql) => /sales_orders/.test(sql))).toHaveLength(1);
    expect(large.filter((sql) => /sales_orders/.test(sql))).toHaveLength(1);
    expect(counted.filter((sql) => /sales_orders/.test(sql))).toHaveLength(2);
    expect(large.some((sql) => /OFFSET/i.test(sql))).toBe(false);
  });
});
