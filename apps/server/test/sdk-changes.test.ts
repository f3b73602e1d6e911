import {
  ChangeCode,
  createSalesOrderClient,
  SalesOrderConflictError,
  SalesOrderPreconditionFailedError,
  SalesOrderUnprocessableError,
} from '@sales-order/client';
import { describe, expect, it } from 'vitest';

import { recordDelivery } from './support/deliveries.js';
import { ORDER_DATE, orderBody } from './support/fixtures.js';
import { useServerWithFixtures } from './support/test-server.js';
import { signJwt } from './support/tokens.js';

/** The SDK's change requests: each method resolves with its route's data and rejects with the typed error of its status. */
describe('SDK: change requests', () => {
  const suite = useServerWithFixtures();

  it('opens, lists, applies and discards, with typed refusals', async () => {
    const token = await signJwt({ payload: { permissions: ['*'] } });
    const client = createSalesOrderClient({ baseUrl: suite.server.api, auth: { type: 'bearer', token } });
    const urea = suite.fixtures.products.otherProduct.id;
    const created = await client.createSalesOrder(
      orderBody(suite.fixtures, { details: [{ product_id: urea, quantity: 10, rate: 2 }], status: 'confirmed' }),
    );
    const order = await client.getSalesOrder(created.sales_order_id);
    const line = order.details[0]!.sales_order_detail_id;

    // A stale version: 412.
    await expect(
      client.openChange(
        order.sales_order_id,
        { reason: 'x', details: [{ sales_order_detail_id: line, quantity: 9 }] },
        { ifMatch: 1 },
      ),
    ).rejects.toBeInstanceOf(SalesOrderPreconditionFailedError);

    await recordDelivery(suite.server.database.prisma, {
      orderId: order.sales_order_id,
      date: ORDER_DATE,
      lines: [{ detailId: line, quantity: '3' }],
    });
    const below = await client
      .openChange(order.sales_order_id, { reason: 'x', details: [{ sales_order_detail_id: line, quantity: 2.999 }] })
      .catch((error: unknown) => error);
    expect(below).toBeInstanceOf(SalesOrderUnprocessableError);
    expect((below as SalesOrderUnprocessableError).details[0]!.code).toBe(ChangeCode.quantityBelowDelivered);
    // Asked by code: the detail with it, none with another.
    expect((below as SalesOrderUnprocessableError).hasCode('quantity_below_delivered')).toBe(true);
    expect((below as SalesOrderUnprocessableError).hasCode(ChangeCode.lineHasDeliveries)).toBe(false);
    expect((below as SalesOrderUnprocessableError).detailsWithCode('quantity_below_delivered')).toEqual([
      (below as SalesOrderUnprocessableError).details[0],
    ]);
    expect((below as SalesOrderUnprocessableError).detailsWithCode('over_delivery')).toEqual([]);

    const change = await client.openChange(
      order.sales_order_id,
      { reason: 'fewer', details: [{ sales_order_detail_id: line, quantity: 3 }] },
      { ifMatch: order.version },
    );
    expect(change).toMatchObject({ status: 'open', base_version: order.version });
    expect(change.order.grand_total).toBe(6 + 350);
    const again = await client
      .openChange(order.sales_order_id, { reason: 'x', details: [{ sales_order_detail_id: line, quantity: 4 }] })
      .catch((error: unknown) => error);
    expect(again).toBeInstanceOf(SalesOrderConflictError);
    expect((again as SalesOrderConflictError).details[0]!.code).toBe(ChangeCode.changeAlreadyOpen);

    expect((await client.listChanges(order.sales_order_id)).changes.map((each) => each.change_id)).toEqual([
      change.change_id,
    ]);
    const applied = await client.applyChange(order.sales_order_id, change.change_id);
    expect(applied).toMatchObject({ status: 'applied', applied_version: order.version + 1 });
    expect((await client.getSalesOrder(order.sales_order_id)).details[0]!.quantity).toBe(3);
    const discarded = await client
      .discardChange(order.sales_order_id, change.change_id)
      .catch((error: unknown) => error);
    expect(discarded).toBeInstanceOf(SalesOrderConflictError);
    expect((discarded as SalesOrderConflictError).details[0]!.code).toBe(ChangeCode.changeNotOpen);
  });
});
