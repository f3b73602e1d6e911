import { describe, expect, it } from 'vitest';

import { orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';

/**
 * The list's `line_count` is a column of the order kept by triggers on its lines (migration
 * order_line_count), not a count per listed row: whoever writes lines (the service's create,
 * update and amend, the host's SQL), the list must show how many lines the order has.
 */
describe('line_count in the list follows every writer of lines', () => {
  const suite = useServerWithFixtures();
  const line = (quantity: number) => ({ product_id: suite.fixtures.products.otherProduct.id, quantity, rate: 1 });

  const listed = async (id: number) => {
    const items = (
      await suite.server.http
        .get('/sales-orders')
        .query({ number: await numberOf(id), include_deleted: true })
        .expect(200)
    ).body.data.items as { sales_order_id: number; line_count: number }[];
    return items.find((item) => item.sales_order_id === id)!.line_count;
  };
  const numberOf = async (id: number) =>
    (
      await suite.server.database.prisma.$queryRaw<{ sales_order_no: string }[]>`
        SELECT sales_order_no FROM sales_orders WHERE id = ${id}`
    )[0]!.sales_order_no;
  const counted = async (id: number) =>
    (
      await suite.server.database.prisma.$queryRaw<{ lines: number }[]>`
        SELECT count(*)::int AS lines FROM sales_order_details WHERE sales_order_id = ${id}`
    )[0]!.lines;

  it('after create, update, a set sent back unchanged, amend, and host SQL inserting, moving and deleting lines', async () => {
    const { http, database } = suite.server;
    const prisma = database.prisma;
    const id = (
      await http
        .post('/sales-orders')
        .send(orderBody(suite.fixtures, { details: [line(1), line(2), line(3)] }))
        .expect(201)
    ).body.data.sales_order_id as number;
    expect(await listed(id)).toBe(3);

    await http
      .put(`/sales-orders/${id}`)
      .send({ details: [line(1), line(5)] })
      .expect(200);
    expect(await listed(id)).toBe(2);
    await http
      .put(`/sales-orders/${id}`)
      .send({ details: [line(1), line(5)] })
      .expect(200);
    expect(await listed(id)).toBe(2);

    const other = (
      await http
        .post('/sales-orders')
        .send(orderBody(suite.fixtures, { details: [line(9)] }))
        .expect(201)
    ).body.data.sales_order_id as number;
    // The host's SQL: two lines added in one statement, one moved to the other order, one deleted.
    await prisma.$executeRaw`
      INSERT INTO sales_order_details (sales_order_id, line_no, product_id, quantity, rate, amount)
      VALUES (${id}, 10, ${suite.fixtures.products.otherProduct.id}, 1, 1, 1),
             (${id}, 11, ${suite.fixtures.products.otherProduct.id}, 1, 1, 1)`;
    await prisma.$executeRaw`UPDATE sales_order_details SET sales_order_id = ${other}, line_no = 20
      WHERE sales_order_id = ${id} AND line_no = 10`;
    await prisma.$executeRaw`DELETE FROM sales_order_details WHERE sales_order_id = ${id} AND line_no = 11`;
    // A status change rewrites the lines' copies of their order: no count moves.
    await http.post(`/sales-orders/${id}/confirm`).send({ acknowledge_warnings: true }).expect(200);
    for (const order of [id, other]) expect(await listed(order)).toBe(await counted(order));
    expect(await listed(id)).toBe(2);
    expect(await listed(other)).toBe(2);

    await http.post(`/sales-orders/${id}/cancel`).send({ reason: 'to amend' }).expect(200);
    const amended = (await http.post(`/sales-orders/${id}/amend`).expect(201)).body.data.sales_order_id as number;
    expect(await listed(amended)).toBe(2);
  });
});
