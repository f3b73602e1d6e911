import { describe, expect, it } from 'vitest';

import { ORDER_DATE, orderBody } from './support/fixtures.js';
import { createLicensedProduct } from './support/licences.js';
import { useServerWithFixtures } from './support/test-server.js';

/** Over-delivery within OVER_DELIVERY_TOLERANCE_PERCENT, and the limited licence a tolerance can reach. */
describe('deliveries with a tolerance of 10 %', () => {
  const suite = useServerWithFixtures({ OVER_DELIVERY_TOLERANCE_PERCENT: '10' });
  const http = () => suite.server.http;

  const confirmed = async (details: unknown[]) => {
    const id = (
      await http()
        .post('/sales-orders')
        .send(orderBody(suite.fixtures, { status: 'confirmed', acknowledge_warnings: true, details }))
        .expect(201)
    ).body.data.sales_order_id as number;
    return (await http().get(`/sales-orders/${id}`).expect(200)).body.data;
  };
  const deliver = (orderId: number, lineId: number, quantity: number) =>
    http()
      .post(`/sales-orders/${orderId}/deliveries`)
      .send({ delivery_date: ORDER_DATE, lines: [{ sales_order_detail_id: lineId, quantity }] });

  it('takes up to 110 % of a line, exactly: 11 of 10 and no more', async () => {
    const order = await confirmed([{ product_id: suite.fixtures.products.otherProduct.id, quantity: 10, rate: 1 }]);
    const line = order.details[0].sales_order_detail_id;
    const over = await deliver(order.sales_order_id, line, 11.001);
    expect(over.status).toBe(422);
    expect(over.body.error.details[0]).toMatchObject({ path: 'lines.0.quantity', code: 'over_delivery' });
    expect(over.body.error.details[0].message).toContain('at most 11 more');
    await deliver(order.sales_order_id, line, 11).expect(201);
    const after = (await http().get(`/sales-orders/${order.sales_order_id}`).expect(200)).body.data;
    expect(after.details[0]).toMatchObject({ delivered_quantity: 11, pending_quantity: 0 });
    expect(after.delivery_status).toBe('delivered');
  });

  it('refuses a delivery past what a limited licence has left (422 quantity_exceeds_licence), with no override', async () => {
    const product = await createLicensedProduct(suite.server.database.prisma, {
      licences: [{ validFrom: '2026-01-01', validTo: '2027-12-31', quantity: '100' }],
    });
    const order = await confirmed([{ product_id: product.id, quantity: 95, rate: 1 }]);
    const line = order.details[0].sales_order_detail_id;
    // 100.001 is within the tolerance (104.5) but past the licence (100, of which this order holds 95).
    const refused = await deliver(order.sales_order_id, line, 100.001);
    expect(refused.status).toBe(422);
    expect(refused.body.error.details).toEqual([
      expect.objectContaining({ path: 'lines.0.quantity', code: 'quantity_exceeds_licence' }),
    ]);
    await deliver(order.sales_order_id, line, 100).expect(201);
    await deliver(order.sales_order_id, line, 0.001).expect(422);
  });
});
