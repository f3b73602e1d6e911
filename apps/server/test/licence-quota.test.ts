import { beforeAll, describe, expect, it } from 'vitest';

import { ORDER_DATE, orderBody } from './support/fixtures.js';
import { createLicensedProduct } from './support/licences.js';
import { useServerWithFixtures } from './support/test-server.js';

/**
 * The licence quota reads copies of each order's date and of "consumes quota" (confirmed or
 * closed, not deleted) on its lines, kept by triggers (migrations 20261122072000_licence_use_index
 * and 20261124191503_order_lifecycle). These are the ways a copy could go stale: an order's date
 * moving in or out of the window, a status change, a delete undone by the host, lines replaced
 * before a confirm, and host SQL writing lines or orders directly, with or without the copies.
 * After each, the quota must say what the orders say.
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

  const placeDraft = async (quantity: number, date = ORDER_DATE): Promise<number> => {
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
  const confirm = (id: number) =>
    suite.server.http.post(`/sales-orders/${id}/confirm`).send({ acknowledge_warnings: true }).expect(200);
  /** A confirmed order: what holds quota. */
  const placeOrder = async (quantity: number, date = ORDER_DATE): Promise<number> => {
    const id = await placeDraft(quantity, date);
    await confirm(id);
    return id;
  };

  /** Lines whose copies disagree with their order: none, whoever wrote what. */
  const staleLines = async () =>
    suite.server.database.prisma.$queryRaw<{ id: number }[]>`
      SELECT d.id FROM sales_order_details d JOIN sales_orders o ON o.id = d.sales_order_id
      WHERE d.order_date IS DISTINCT FROM o.sales_order_date
         OR d.consumes_quota <> (o.deleted_at IS NULL AND o.status IN ('confirmed', 'closed'))`;

  it('an order whose date moves out of the window stops counting, and counts again when it moves back', async () => {
    const draft = await placeDraft(7);
    // A draft moved about by PUT never counts; confirmed, it counts where its date lies.
    await suite.server.http.put(`/sales-orders/${draft}`).send({ sales_order_date: '2027-01-01' }).expect(200);
    await suite.server.http.put(`/sales-orders/${draft}`).send({ sales_order_date: '2026-12-31' }).expect(200);
    expect(await used()).toBe('0');
    await confirm(draft);
    expect(await used()).toBe('7');
    // The host moves it with SQL (a confirmed order's date is locked to the API).
    await suite.server.database.prisma
      .$executeRaw`UPDATE sales_orders SET sales_order_date = '2027-02-01' WHERE id = ${draft}`;
    expect(await used()).toBe('0');
    await suite.server.database.prisma
      .$executeRaw`UPDATE sales_orders SET sales_order_date = '2026-07-01' WHERE id = ${draft}`;
    expect(await used()).toBe('7');
    expect(await staleLines()).toEqual([]);
  });

  it('lines replaced on a draft count with their new quantity once confirmed; the order being edited is left out', async () => {
    const id = await placeDraft(5);
    expect(await used()).toBe('7');
    await suite.server.http
      .put(`/sales-orders/${id}`)
      .send({
        details: [
          { product_id: product.id, quantity: 2.5, rate: 1 },
          { product_id: product.id, quantity: 0.001, rate: 1 },
        ],
      })
      .expect(200);
    expect(await used()).toBe('7');
    await confirm(id);
    expect(await used()).toBe('9.501');
    expect(await used({ sales_order_id: id })).toBe('7');
    expect(await staleLines()).toEqual([]);
  });

  it('a cancelled or closed order, a deleted one and a delete the host undoes', async () => {
    const id = await placeOrder(20);
    expect(await used()).toBe('29.501');
    // Delivered in full, so the close short-closes nothing: a closed order holds what it delivered.
    const line = (await suite.server.http.get(`/sales-orders/${id}`).expect(200)).body.data.details[0];
    await suite.server.http
      .post(`/sales-orders/${id}/deliveries`)
      .send({ delivery_date: ORDER_DATE, lines: [{ sales_order_detail_id: line.sales_order_detail_id, quantity: 20 }] })
      .expect(201);
    expect(await used()).toBe('29.501');
    await suite.server.http.post(`/sales-orders/${id}/close`).expect(200);
    expect(await used()).toBe('29.501');
    // The host cancels it with SQL; then deletes it, and undoes the delete.
    const { prisma } = suite.server.database;
    await prisma.$executeRaw`UPDATE sales_orders SET status = 'cancelled', cancellation_reason = 'host' WHERE id = ${id}`;
    expect(await used()).toBe('9.501');
    await prisma.$executeRaw`UPDATE sales_orders SET status = 'confirmed', cancellation_reason = NULL WHERE id = ${id}`;
    expect(await used()).toBe('29.501');
    await prisma.$executeRaw`UPDATE sales_orders SET deleted_at = now(), remarks = 'purged' WHERE id = ${id}`;
    expect(await used()).toBe('9.501');
    await prisma.$executeRaw`UPDATE sales_orders SET deleted_at = NULL, deleted_by = NULL WHERE id = ${id}`;
    expect(await used()).toBe('29.501');
    const cancelled = await placeOrder(3);
    expect(await used()).toBe('32.501');
    await suite.server.http.post(`/sales-orders/${cancelled}/cancel`).send({ reason: 'duplicate' }).expect(200);
    expect(await used()).toBe('29.501');
    expect(await staleLines()).toEqual([]);
  });

  it('lines written by host SQL take their order’s date and flag, whatever the statement says', async () => {
    const { prisma } = suite.server.database;
    const inWindow = await placeOrder(1);
    const outside = await placeOrder(1, '2027-03-01');
    const draft = await placeDraft(1);
    expect(await used()).toBe('30.501');

    // Copies written wrongly on purpose: an outside date and no quota on a confirmed in-window order, and the reverse.
    await prisma.$executeRaw`
      INSERT INTO sales_order_details (sales_order_id, line_no, product_id, quantity, rate, amount, order_date, consumes_quota)
      VALUES (${inWindow}, 2, ${product.id}, 3, 1, 3, '2030-01-01', false),
             (${outside}, 2, ${product.id}, 50, 1, 50, ${ORDER_DATE}::date, true),
             (${draft}, 2, ${product.id}, 50, 1, 50, ${ORDER_DATE}::date, true)`;
    expect(await used()).toBe('33.501');
    // Nor can an update of a line set them.
    await prisma.$executeRaw`UPDATE sales_order_details SET consumes_quota = false, order_date = '2020-01-01' WHERE sales_order_id = ${inWindow}`;
    expect(await used()).toBe('33.501');
    // A line moved to another order takes that order's copies.
    await prisma.$executeRaw`UPDATE sales_order_details SET sales_order_id = ${outside}, line_no = 3 WHERE sales_order_id = ${inWindow} AND line_no = 2`;
    expect(await used()).toBe('30.501');
    expect(await staleLines()).toEqual([]);
  });
});
