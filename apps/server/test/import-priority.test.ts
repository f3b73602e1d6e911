import { request as httpRequest } from 'node:http';

import { describe, expect, it } from 'vitest';

import { eventually } from './support/eventually.js';
import { type Fixtures, ORDER_DATE } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';
import { signJwt } from './support/tokens.js';

/**
 * Imports give way to requests (docs/decisions/imports-give-way-to-requests.md): while a
 * request is under way in the process, an import makes its orders one small chunk at a time (a
 * tenth of IMPORT_CHUNK_SIZE) with pauses between them, and goes on at full size once no request
 * is. Each chunk is one transaction, so the orders' transaction ids (xmin) count the chunks.
 */

const HEADER = 'order_ref,customer_id,location_id,sales_order_date,product_id,quantity,rate,customer_reference';
const CHUNK = 20;
const ORDERS = 40;

const csv = (f: Fixtures, tag: string) =>
  [
    HEADER,
    ...Array.from({ length: ORDERS }, (_, index) =>
      [
        `${tag}-${index}`,
        f.customers.customer.id,
        f.locations.dhaka.id,
        ORDER_DATE,
        f.products.otherProduct.id,
        1,
        10,
        tag,
      ].join(','),
    ),
  ].join('\n');

describe('an import beside requests', () => {
  const suite = useServerWithFixtures({ IMPORT_CHUNK_SIZE: String(CHUNK), IMPORT_MAX_ORDERS: '100' });

  const run = async (tag: string) => {
    const upload = await suite.server.http
      .post('/imports')
      .set('Content-Type', 'text/csv')
      .send(csv(suite.fixtures, tag));
    expect(upload.status).toBe(202);
    const id = upload.body.data.import_id as number;
    // Read from the table, not over HTTP: a progress request would itself be one to give way to.
    let state: string | undefined;
    await eventually(async () => {
      state = (await suite.server.database.prisma.import.findUnique({ where: { id } }))?.state;
      return state !== 'queued' && state !== 'running';
    }, 60_000);
    expect(state).toBe('completed');
    const [row] = await suite.server.database.prisma.$queryRaw<{ orders: number; transactions: number }[]>`
      SELECT count(*)::int AS orders, count(DISTINCT xmin::text)::int AS transactions
      FROM sales_orders WHERE customer_reference = ${tag}`;
    return row!;
  };

  /**
   * A create (or another POST) whose body is never finished: authenticated, so it waits in the
   * body parser, under way until its socket is closed.
   */
  const holdARequest = async (path = '/sales-orders', type = 'application/json') => {
    const token = await signJwt({ payload: { permissions: ['*'] }, expiresIn: '1h' });
    const held = httpRequest(`${suite.server.api}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': type, 'content-length': '1000' },
    });
    held.on('error', () => {});
    held.write(type === 'text/csv' ? `${HEADER}\n` : '{"customer_id": ');
    await new Promise<void>((resolve) => held.once('socket', (socket) => socket.once('connect', resolve)));
    return () => held.destroy();
  };

  it('alone, it makes its orders in chunks of IMPORT_CHUNK_SIZE', async () => {
    // Requests that have ended, answered or refused, are no longer under way.
    expect((await suite.server.http.get('/sales-orders?limit=1')).status).toBe(200);
    expect((await suite.server.http.get('/sales-orders/not-a-number')).status).toBe(400);
    expect(await run('alone')).toEqual({ orders: ORDERS, transactions: ORDERS / CHUNK });
  });

  it('while a request is under way, in chunks of a tenth of that, and it still finishes', async () => {
    const release = await holdARequest();
    try {
      expect(await run('beside')).toEqual({ orders: ORDERS, transactions: ORDERS / (CHUNK / 10) });
    } finally {
      release();
    }
  });

  it('a request about imports (an upload, a page following progress) is not one to give way to', async () => {
    const release = await holdARequest('/imports', 'text/csv');
    try {
      expect(await run('about-imports')).toEqual({ orders: ORDERS, transactions: ORDERS / CHUNK });
    } finally {
      release();
    }
  });
});
