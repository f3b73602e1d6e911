import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { eventually } from './support/eventually.js';
import { type Fixtures, ORDER_DATE } from './support/fixtures.js';
import { orderWriteGate } from './support/order-write-gate.js';
import { useServerWithFixtures } from './support/test-server.js';
import { signJwt } from './support/tokens.js';

/**
 * Imports through the real HTTP stack and the real job queue on PostgreSQL: a file goes in, the
 * background job creates its orders chunk by chunk through the single create, and the results
 * say, per order, what was made or which line and column were wrong.
 */

const HEADER = 'order_ref,customer_id,location_id,sales_order_date,product_id,quantity,rate,remarks,customer_reference';

const csvRow = (f: Fixtures, ref: string, overrides: Partial<Record<string, string | number>> = {}) => {
  const cells = {
    order_ref: ref,
    customer_id: f.customers.customer.id,
    location_id: f.locations.dhaka.id,
    sales_order_date: ORDER_DATE,
    product_id: f.products.otherProduct.id,
    quantity: 2,
    rate: 100,
    remarks: '',
    customer_reference: ref,
    ...overrides,
  };
  return HEADER.split(',')
    .map((column) => String(cells[column as keyof typeof cells]))
    .join(',');
};

describe('imports', () => {
  // Small chunks, so that a file of a few orders takes several jobs.
  const suite = useServerWithFixtures({ IMPORT_CHUNK_SIZE: '2', IMPORT_MAX_ORDERS: '50', IMPORT_MAX_BYTES: '20000' });

  // As the suite's all-permission caller, or as the caller a token names.
  const get = (path: string, token?: string) =>
    token ? request(suite.server.api).get(path).set('Authorization', `Bearer ${token}`) : suite.server.http.get(path);

  const upload = (body: string, type = 'text/csv', token?: string) =>
    (token
      ? request(suite.server.api).post('/imports').set('Authorization', `Bearer ${token}`)
      : suite.server.http.post('/imports')
    )
      .set('Content-Type', type)
      .send(body);

  const finished = async (id: number, token?: string) => {
    let last: { state: string } | undefined;
    await eventually(async () => {
      last = (await get(`/imports/${id}`, token)).body.data;
      return last?.state !== 'queued' && last?.state !== 'running';
    }, 60_000);
    return last as Record<string, unknown>;
  };

  const resultsOf = async (id: number, token?: string) => {
    const response = await get(`/imports/${id}/results`, token)
      .buffer(true)
      .parse((res, done) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => done(null, text));
      });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/x-ndjson/);
    return (response.body as string)
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  };

  const ordersWithReference = (reference: string) =>
    suite.server.database.prisma.salesOrder.findMany({ where: { customerReference: reference } });

  it('a CSV of several orders: rows grouped by order_ref, malformed rows fail only their order, named by line and column', async () => {
    const f = suite.fixtures;
    const file = [
      HEADER,
      csvRow(f, 'csv-a', { remarks: 'first line' }),
      csvRow(f, 'csv-b', { quantity: 'ten' }),
      csvRow(f, 'csv-a', { quantity: 3, rate: 50 }),
      csvRow(f, 'csv-c', { customer_id: 999999 }),
      csvRow(f, 'csv-d').split(',').slice(0, 5).join(','),
      csvRow(f, 'csv-e', { remarks: '"=HYPERLINK(""http://x"")"' }),
    ].join('\n');

    const started = await upload(file);
    expect(started.status).toBe(202);
    expect(started.body.data).toMatchObject({ state: 'queued', format: 'csv', orders_total: 5 });
    const id = started.body.data.import_id as number;

    const done = await finished(id);
    expect(done).toMatchObject({ state: 'completed', orders_created: 2, orders_failed: 3, rows_read: 6 });
    expect(done.finished_at).toEqual(expect.any(String));

    const results = await resultsOf(id);
    expect(results.map((result) => [result.order_ref, result.status, result.lines])).toEqual([
      ['csv-a', 'created', [2, 4]],
      ['csv-b', 'failed', [3]],
      ['csv-c', 'failed', [5]],
      ['csv-d', 'failed', [6]],
      ['csv-e', 'created', [7]],
    ]);
    const [a, b, c, d, e] = results;
    expect(b!.errors).toEqual([
      { path: 'details.0.quantity', message: 'line 3, column quantity: "ten" is not a number', code: 'invalid_cell' },
    ]);
    expect(c!.errors).toEqual([
      expect.objectContaining({
        path: 'customer_id',
        code: 'unknown_customer',
        message: expect.stringMatching(/^line 5, column customer_id: /),
      }),
    ]);
    expect(d!.errors).toEqual([
      expect.objectContaining({ code: 'wrong_column_count', message: 'line 6: has 5 cells where the header has 9' }),
    ]);

    // Two rows made one order of two lines; the formula is kept as the text it is.
    const [orderA] = await ordersWithReference('csv-a');
    const order = (await suite.server.http.get(`/sales-orders/${a!.sales_order_id as number}`)).body.data;
    expect(orderA!.id).toBe(a!.sales_order_id);
    expect(order.details.map((line: { quantity: number }) => line.quantity)).toEqual([2, 3]);
    expect(order.remarks).toBe('first line');
    const orderE = (await suite.server.http.get(`/sales-orders/${e!.sales_order_id as number}`)).body.data;
    expect(orderE.remarks).toBe('=HYPERLINK("http://x")');
    expect(await ordersWithReference('csv-b')).toEqual([]);
  });

  it('results as CSV escape cells that would start a spreadsheet formula', async () => {
    const f = suite.fixtures;
    const started = await upload([HEADER, csvRow(f, '=1+2'), csvRow(f, '@SUM(A1)', { quantity: '-x' })].join('\n'));
    const id = started.body.data.import_id as number;
    await finished(id);

    const csv = await suite.server.http.get(`/imports/${id}/results`).set('Accept', 'text/csv').buffer(true);
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const lines = csv.text.trim().split('\n');
    expect(lines[0]).toBe('order_ref,lines,status,sales_order_id,order_number,errors');
    expect(lines[1]).toMatch(/^'=1\+2,2,created,\d+,DHK-2026-\d+,$/);
    expect(lines[2]).toMatch(/^'@SUM\(A1\),3,failed,,,/);
  });

  it('JSON Lines: one create body a line; a line that is not JSON and a repeated order_ref fail alone', async () => {
    const f = suite.fixtures;
    const body = (ref: string) =>
      JSON.stringify({
        order_ref: ref,
        customer_id: f.customers.customer.id,
        location_id: f.locations.dhaka.id,
        sales_order_date: ORDER_DATE,
        customer_reference: ref,
        details: [{ product_id: f.products.otherProduct.id, quantity: 1, rate: 10 }],
      });
    const file = [body('nd-1'), '{not json', '', body('nd-2'), body('nd-1')].join('\n');

    const started = await upload(file, 'application/x-ndjson');
    expect(started.status).toBe(202);
    const id = started.body.data.import_id as number;
    expect(await finished(id)).toMatchObject({ state: 'completed', orders_created: 2, orders_failed: 2 });

    const results = await resultsOf(id);
    expect(results.map((result) => [result.order_ref, result.status, result.lines])).toEqual([
      ['nd-1', 'created', [1]],
      ['line-2', 'failed', [2]],
      ['nd-2', 'created', [4]],
      ['nd-1', 'failed', [5]],
    ]);
    expect(results[1]!.errors).toEqual([{ path: '', message: 'line 2: is not a JSON object', code: 'invalid_line' }]);
    expect(results[3]!.errors).toEqual([expect.objectContaining({ code: 'inconsistent_order' })]);
    expect(await ordersWithReference('nd-1')).toHaveLength(1);
  });

  it('a row that is not valid UTF-8 fails its order; the others are made', async () => {
    const f = suite.fixtures;
    const file = Buffer.concat([
      Buffer.from(`${HEADER}\n${csvRow(f, 'utf-a')}\n${csvRow(f, 'utf-b', { remarks: 'caf' })}`),
      Buffer.from([0xe9, 0x0a]),
      Buffer.from(`${csvRow(f, 'utf-c')}\n`),
    ]);
    const started = await suite.server.http.post('/imports').set('Content-Type', 'text/csv').send(file);
    expect(started.status).toBe(202);
    const id = started.body.data.import_id as number;
    expect(await finished(id)).toMatchObject({ orders_created: 2, orders_failed: 1 });
    const results = await resultsOf(id);
    expect(results[1]).toMatchObject({
      order_ref: 'utf-b',
      status: 'failed',
      errors: [{ path: '', message: 'line 3: is not valid UTF-8', code: 'invalid_encoding' }],
    });
  });

  it.each([
    ['an empty file', '', 'text/csv', 400, 'import_not_readable'],
    ['a binary file', 'PK\u0003\u0004\u0000\u0000binary', 'text/csv', 400, 'import_not_readable'],
    ['a CSV without order_ref', 'customer_id,quantity\n1,2\n', 'text/csv', 400, 'import_not_readable'],
    ['a CSV naming an unknown column', 'order_ref,colour\na,red\n', 'text/csv', 400, 'import_not_readable'],
    ['JSON Lines whose first line is not JSON', 'hello\n{}\n', 'application/x-ndjson', 400, 'import_not_readable'],
    ['a JSON body', '{"orders":[]}', 'application/json', 400, 'unsupported_media_type'],
  ])('%s is refused at upload and nothing is stored', async (_name, body, type, status, code) => {
    const before = await suite.server.database.prisma.import.count();
    const response = await upload(body, type);
    expect(response.status).toBe(status);
    expect(response.body.error.details).toEqual([expect.objectContaining({ code })]);
    expect(await suite.server.database.prisma.import.count()).toBe(before);
  });

  it('IMPORT_MAX_ORDERS and IMPORT_MAX_BYTES are enforced at upload', async () => {
    const f = suite.fixtures;
    const many = [HEADER, ...Array.from({ length: 51 }, (_, index) => csvRow(f, `many-${index}`))].join('\n');
    const tooMany = await upload(many);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.details[0].code).toBe('import_too_many_orders');

    const tooLarge = await upload(`${HEADER}\n${csvRow(f, 'big', { remarks: 'x'.repeat(20_000) })}`);
    expect(tooLarge.status).toBe(413);
  });

  it('an import needs sales_orders.import, and a caller sees only its own imports', async () => {
    const f = suite.fixtures;
    const noImport = await signJwt({ payload: { permissions: ['sales_orders.create', 'sales_orders.read'] } });
    const refused = await request(suite.server.api)
      .post('/imports')
      .set('Authorization', `Bearer ${noImport}`)
      .set('Content-Type', 'text/csv')
      .send(`${HEADER}\n${csvRow(f, 'perm')}`);
    expect(refused.status).toBe(403);

    const mine = await upload(`${HEADER}\n${csvRow(f, 'mine')}`);
    const id = mine.body.data.import_id as number;
    const other = await signJwt({ subject: 'someone-else', payload: { permissions: ['sales_orders.import'] } });
    const asOther = (path: string) => request(suite.server.api).get(path).set('Authorization', `Bearer ${other}`);
    expect((await asOther(`/imports/${id}`)).status).toBe(404);
    expect((await asOther(`/imports/${id}/results`)).status).toBe(404);
    expect((await asOther('/imports')).body.data.items).toEqual([]);
    const listed = (await suite.server.http.get('/imports')).body.data.items as { import_id: number }[];
    expect(listed[0]!.import_id).toBe(id);
  });

  it('an import started by a caller without sales_orders.confirm makes no confirmed order', async () => {
    const f = suite.fixtures;
    const token = await signJwt({
      subject: 'importer-no-confirm',
      payload: { permissions: ['sales_orders.import', 'sales_orders.create'] },
    });
    const file = [
      JSON.stringify({
        order_ref: 'confirm-me',
        status: 'confirmed',
        customer_id: f.customers.customer.id,
        location_id: f.locations.dhaka.id,
        sales_order_date: ORDER_DATE,
        customer_reference: 'confirm-me',
        details: [{ product_id: f.products.otherProduct.id, quantity: 1, rate: 10 }],
      }),
    ].join('\n');
    const started = await upload(file, 'application/x-ndjson', token);
    expect(started.status).toBe(202);
    const id = started.body.data.import_id as number;
    expect(await finished(id, token)).toMatchObject({ state: 'completed' });
    expect(await ordersWithReference('confirm-me')).toEqual([]);
    expect(await resultsOf(id, token)).toMatchObject([
      {
        order_ref: 'confirm-me',
        status: 'failed',
        errors: [{ code: 'missing_permission', message: expect.stringContaining('sales_orders.confirm') }],
      },
    ]);
  });

  it("an import runs with its starter's scope: an order outside it fails alone, the others are the starter's", async () => {
    const f = suite.fixtures;
    const token = await signJwt({
      subject: 'importer-in-dhaka',
      payload: { permissions: ['sales_orders.import', 'sales_orders.create'], locations: [f.locations.dhaka.code] },
    });
    const file = [
      HEADER,
      csvRow(f, 'scoped-in'),
      csvRow(f, 'scoped-out', { location_id: f.locations.chattogram.id }),
      csvRow(f, 'scoped-in-2'),
    ].join('\n');
    const started = await upload(file, 'text/csv', token);
    expect(started.status).toBe(202);
    const id = started.body.data.import_id as number;
    expect(await finished(id, token)).toMatchObject({ state: 'completed', orders_created: 2, orders_failed: 1 });
    expect(await ordersWithReference('scoped-out')).toEqual([]);
    const made = [...(await ordersWithReference('scoped-in')), ...(await ordersWithReference('scoped-in-2'))];
    expect(made.map((order) => order.createdBy)).toEqual(['importer-in-dhaka', 'importer-in-dhaka']);
    const byRef = Object.fromEntries((await resultsOf(id, token)).map((result) => [result.order_ref, result]));
    expect(byRef['scoped-out']).toMatchObject({
      status: 'failed',
      lines: [3],
      errors: [{ code: 'location_not_permitted', path: 'location_id', message: expect.stringContaining('line 3') }],
    });
    expect(byRef['scoped-in']).toMatchObject({ status: 'created', lines: [2] });
  });

  it('cancel stops a queued or running import after its chunk; the orders made stay', async () => {
    const f = suite.fixtures;
    const file = [HEADER, ...Array.from({ length: 40 }, (_, index) => csvRow(f, `cancel-${index}`))].join('\n');
    // Orders wait while the cancel is sent, so the import cannot end first on a fast machine.
    const gate = await orderWriteGate(suite.server.database.pool.options.connectionString);
    let id: number;
    try {
      await gate.shut();
      const started = await upload(file);
      id = started.body.data.import_id as number;
      const cancelled = await suite.server.http.post(`/imports/${id}/cancel`);
      expect(cancelled.status).toBe(200);
    } finally {
      await gate.close();
    }
    const done = await finished(id);
    expect(done.state).toBe('cancelled');
    const made = await suite.server.database.prisma.salesOrder.count({
      where: { customerReference: { startsWith: 'cancel-' } },
    });
    expect(made).toBe(done.orders_created);
    expect(made).toBeLessThan(40);
  });

  it('refuses to cancel an import that has ended (409 import_ended), which stays as it ended', async () => {
    const f = suite.fixtures;
    const started = await upload([HEADER, csvRow(f, 'ended-1'), csvRow(f, 'ended-2')].join('\n'));
    const id = started.body.data.import_id as number;
    const done = await finished(id);
    expect(done.state).toBe('completed');
    for (const attempt of [1, 2]) {
      const refused = await suite.server.http.post(`/imports/${id}/cancel`);
      expect(refused.status, `attempt ${attempt}`).toBe(409);
      expect(refused.body.error.details).toEqual([
        expect.objectContaining({ path: '', code: 'import_ended', message: expect.stringContaining('completed') }),
      ]);
      expect((await suite.server.http.get(`/imports/${id}`)).body.data).toEqual(done);
    }
  });
});
