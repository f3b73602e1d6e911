import { randomBytes } from 'node:crypto';

import type { PrismaClient } from '../../src/generated/prisma/client.js';
import { DELIVERY_STATUS_OF_ORDER } from '../../src/orders/store/order-read-shape.js';

/**
 * Deliveries and returns written in SQL, exactly as a delivery writes them (the model of
 * migration 20261207040703_deliveries), for the tests of what reads them (reports) until the
 * deliveries routes are on main; then these become calls of those routes. What each writes:
 *
 * - a delivery: a `deliveries` row (`recorded`, its order's location and financial year) with its
 *   `delivery_lines` (the order line, its product, the quantity); each order line's running total
 *   `delivered_quantity` grows by the quantity, and the order's `delivery_status` is decided again;
 * - a cancellation: the delivery becomes `cancelled`, and its lines' quantities leave the running
 *   totals again;
 * - a return: a `delivery_returns` row with its `delivery_return_lines` against delivery lines;
 *   each delivery line's `returned_quantity` and its order line's running `returned_quantity` grow.
 *
 * The order's delivery_status: `delivered` when no line has anything pending (ordered - (delivered
 * - returned) - short-closed <= 0), `partly_delivered` when something is delivered net, else
 * `not_delivered`.
 */

/** The order's delivery status decided by the server's own rule (order-read-shape.ts). */
const decideDeliveryStatus = (prisma: PrismaClient, orderId: number) => prisma.$executeRaw`
  UPDATE sales_orders so SET delivery_status = ${DELIVERY_STATUS_OF_ORDER}
  WHERE so.id = ${orderId}`;

let sequence = 0;

/** A recorded delivery of `lines` (order line ids and quantities as decimal text) of the order. */
export const recordDelivery = async (
  prisma: PrismaClient,
  { orderId, date, lines }: { orderId: number; date: string; lines: { detailId: number; quantity: string }[] },
): Promise<{ deliveryId: number; lineIds: number[] }> =>
  prisma.$transaction(async (tx) => {
    sequence += 1;
    const [delivery] = await tx.$queryRaw<{ id: number }[]>`
      INSERT INTO deliveries (delivery_no, sequence, sales_order_id, location_id, financial_year_id, delivery_date, status)
      SELECT ${`TEST-DN-${randomBytes(4).toString('hex')}-${sequence}`}, ${sequence}, so.id, so.location_id,
             so.financial_year_id, ${date}::date, 'recorded'
      FROM sales_orders so WHERE so.id = ${orderId}
      RETURNING id`;
    const lineIds: number[] = [];
    for (const [index, { detailId, quantity }] of lines.entries()) {
      const [line] = await tx.$queryRaw<{ id: number }[]>`
        INSERT INTO delivery_lines (delivery_id, line_no, sales_order_detail_id, product_id, quantity)
        SELECT ${delivery!.id}, ${index + 1}, d.id, d.product_id, ${quantity}::numeric
        FROM sales_order_details d WHERE d.id = ${detailId} AND d.sales_order_id = ${orderId}
        RETURNING id`;
      lineIds.push(line!.id);
      await tx.$executeRaw`
        UPDATE sales_order_details SET delivered_quantity = delivered_quantity + ${quantity}::numeric WHERE id = ${detailId}`;
    }
    await decideDeliveryStatus(tx as PrismaClient, orderId);
    return { deliveryId: delivery!.id, lineIds };
  });

/** Cancels a recorded delivery: its quantities leave the running totals. */
export const cancelDelivery = async (prisma: PrismaClient, deliveryId: number): Promise<void> =>
  prisma.$transaction(async (tx) => {
    const [delivery] = await tx.$queryRaw<{ sales_order_id: number }[]>`
      UPDATE deliveries SET status = 'cancelled', cancellation_reason = 'test' WHERE id = ${deliveryId}
      RETURNING sales_order_id`;
    await tx.$executeRaw`
      UPDATE sales_order_details d SET delivered_quantity = d.delivered_quantity - l.quantity
      FROM delivery_lines l WHERE l.delivery_id = ${deliveryId} AND l.sales_order_detail_id = d.id`;
    await decideDeliveryStatus(tx as PrismaClient, delivery!.sales_order_id);
  });

/** A return of `lines` (delivery line ids and quantities as decimal text) against a delivery. */
export const recordReturn = async (
  prisma: PrismaClient,
  {
    deliveryId,
    date,
    lines,
  }: { deliveryId: number; date: string; lines: { deliveryLineId: number; quantity: string }[] },
): Promise<void> =>
  prisma.$transaction(async (tx) => {
    const [returned] = await tx.$queryRaw<{ id: number }[]>`
      INSERT INTO delivery_returns (delivery_id, return_date, reason) VALUES (${deliveryId}, ${date}::date, 'damaged')
      RETURNING id`;
    for (const { deliveryLineId, quantity } of lines) {
      await tx.$executeRaw`
        INSERT INTO delivery_return_lines (return_id, delivery_line_id, quantity)
        VALUES (${returned!.id}, ${deliveryLineId}, ${quantity}::numeric)`;
      await tx.$executeRaw`
        UPDATE delivery_lines SET returned_quantity = returned_quantity + ${quantity}::numeric WHERE id = ${deliveryLineId}`;
      await tx.$executeRaw`
        UPDATE sales_order_details d SET returned_quantity = d.returned_quantity + ${quantity}::numeric
        FROM delivery_lines l WHERE l.id = ${deliveryLineId} AND d.id = l.sales_order_detail_id`;
    }
    const [delivery] = await tx.$queryRaw<{ sales_order_id: number }[]>`
      SELECT sales_order_id FROM deliveries WHERE id = ${deliveryId}`;
    await decideDeliveryStatus(tx as PrismaClient, delivery!.sales_order_id);
  });
