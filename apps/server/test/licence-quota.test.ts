import { beforeAll, describe, expect, it } from 'vitest';

import { ORDER_DATE, orderBody } from './support/fixtures.js';
import { createLicensedProduct } from './support/licences.js';
import { useServerWithFixtures } from './support/test-server.js';

/**
 * The licence quota reads copies of each order's date and deleted flag on its lines, kept by
 * triggers (migration 20261122072000_licence_use_index). These are the ways a copy could go
 * stale: an order's date moving in or out of the window, a delete undone by the host, lines
 * replaced, and host SQL writing lines or orders directly, with or without the copies. After
 * each, the quota must say what the orders say.
 */
describe('licence quota: what the lines copy of their order stays right', () => {
  const suite = useServerWithFixtures();
  /** The window is the second half of 2026; ORDER_DATE (2026-11-15) is inside it. */
  const LICENCE = { validFrom: '2026-07-01', validTo: '2026-12-31', quantity: '100' };
  let product: Awaited<ReturnType<typeof createLicensedProduct>>;

  beforeAll(async () => {
    product = await createLicensedProduct(suite.server.database.prisma, { licences: [LICENCE] });
  });

  /** What orders in the window hold of the product, as validate-licence reports it (0 when nothing is over). */
  const used = async (extra: Record<string, unknown> = {}): Promise<string> => {
    const response = await suite.server.http
      .post('/sales-orders/validate-licence')
      .send({
        sales_order_date: ORDER_DATE,
        sales_order_details: [{ product_id: product.id, quantity: 1000 }],
        ...extra,
      })
      .expect(200);
    const [warning] = response.body.data.warnings as { code: string; message: string }[];
    expect(warning?.code).toBe('quantity_exceeds_licence');
    return /, (\S+) on orders\)\.$/.exec(warning!.message)![1]!;
  };

  const placeOrder = async (quantity: number, date = ORDER_DATE): Promise<number> => {
    const response = await suite.server.http
      .post('/sales-orders')
      .send(
        orderBody(suite.fixtures, {
          sales_order_date: date,
          details: [{ product_id: product.id, quantity, rate: 1 }],
          other_charges: [],
        }),
      )
      .expect(201);
    return response.body.data.sales_order_id;
  };

  /** Lines whose copies disagree with their order: none, whoever wrote what. */
  const staleLines = async () =>
    suite.server.database.prisma.$queryRaw<{ id: number }[]>`
      SELECT d.id FROM sales_order_details d JOIN sales_orders o ON o.id = d.sales_order_id
      WHERE d.order_date IS DISTINCT FROM o.sales_order_date OR d.live <> (o.deleted_at IS NULL)`;

  it('an order whose date moves out of the window stops counting, and counts again when it moves back', async () => {
    const id = await placeOrder(7);
    expect(await used()).toBe('7');
    // Still in the financial year (July to June), outside the licence window.
    await suite.server.http.put(`/sales-orders/${id}`).send({ sales_order_date: '2027-01-01' }).expect(200);
    expect(await used()).toBe('0');
    await suite.server.http.put(`/sales-orders/${id}`).send({ sales_order_date: '2026-12-31' }).expect(200);
    expect(await used()).toBe('7');
    // The host moves it with SQL.
    await suite.server.database.prisma
      .$executeRaw`UPDATE sales_orders SET sales_order_date = '2027-02-01' WHERE id = ${id}`;
    expect(await used()).toBe('0');
    await suite.server.database.prisma
      .$executeRaw`UPDATE sales_orders SET sales_order_date = '2026-07-01' WHERE id = ${id}`;
    expect(await used()).toBe('7');
    expect(await staleLines()).toEqual([]);
  });

  it('replaced lines count with their new quantity; the order being edited is left out', async () => {
    const id = await placeOrder(5);
    expect(await used()).toBe('12');
    await suite.server.http
      .put(`/sales-orders/${id}`)
      .send({
        details: [
          { product_id: product.id, quantity: 2.5, rate: 1 },
          { product_id: product.id, quantity: 0.001, rate: 1 },
        ],
      })
      .expect(200);
    expect(await used()).toBe('9.501');
    expect(await used({ sales_order_id: id })).toBe('7');
    expect(await staleLines()).toEqual([]);
  });

  it('a deleted order stops counting; a delete the host undoes counts again', async () => {
    const id = await placeOrder(20);
    expect(await used()).toBe('29.501');
    await suite.server.http.delete(`/sales-orders/${id}`).expect(200);
    expect(await used()).toBe('9.501');
    // Another update of the deleted order that leaves deleted_at set keeps it out.
    await suite.server.database.prisma
      .$executeRaw`UPDATE sales_orders SET deleted_at = now(), remarks = 'purged' WHERE id = ${id}`;
    expect(await used()).toBe('9.501');
    await suite.server.database.prisma
      .$executeRaw`UPDATE sales_orders SET deleted_at = NULL, deleted_by = NULL WHERE id = ${id}`;
    expect(await used()).toBe('29.501');
    expect(await staleLines()).toEqual([]);
  });

  it('lines written by host SQL take their order’s date and flag, whatever the statement says', async () => {
    const { prisma } = suite.server.database;
    const inWindow = await placeOrder(1);
    const outside = await placeOrder(1, '2027-03-01');
    const deleted = await placeOrder(1);
    await suite.server.http.delete(`/sales-orders/${deleted}`).expect(200);
    expect(await used()).toBe('30.501');

    // Copies written wrongly on purpose: an outside date and a dead flag on a live in-window order, and the reverse.
    await prisma.$executeRaw`
      INSERT INTO sales_order_details (sales_order_id, line_no, product_id, quantity, rate, amount, order_date, live)
      VALUES (${inWindow}, 2, ${product.id}, 3, 1, 3, '2030-01-01', false),
             (${outside}, 2, ${product.id}, 50, 1, 50, ${ORDER_DATE}::date, true),
             (${deleted}, 2, ${product.id}, 50, 1, 50, ${ORDER_DATE}::date, true)`;
    expect(await used()).toBe('33.501');
    // Nor can an update of a line set them.
    await prisma.$executeRaw`UPDATE sales_order_details SET live = false, order_date = '2020-01-01' WHERE sales_order_id = ${inWindow}`;
    expect(await used()).toBe('33.501');
    // A line moved to another order takes that order's copies.
    await prisma.$executeRaw`UPDATE sales_order_details SET sales_order_id = ${outside}, line_no = 3 WHERE sales_order_id = ${inWindow} AND line_no = 2`;
    expect(await used()).toBe('30.501');
    expect(await staleLines()).toEqual([]);
  });
});
