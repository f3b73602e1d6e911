import { Prisma } from '../../generated/prisma/client.js';
import { jsonDate, jsonDateTime, jsonDecimal } from '../../orders/store/order-read-shape.js';

/**
 * A delivery's read shape (the contract's DeliverySchema) as json built by PostgreSQL, of the row
 * `dv` (deliveries, bounded by the embedding statement's scope), its lines in line order (each with
 * what came back of it). The one fragment GET, the lists, the writes' answers and the events use.
 */
export const deliveryReadShape = Prisma.sql`(
  SELECT row_to_json(shape) FROM (SELECT
    dv.id AS delivery_id, dv.delivery_no, dv.sales_order_id, dv.location_id,
    ${jsonDate('dv.delivery_date')} AS delivery_date, dv.reference, dv.remarks, dv.status, dv.cancellation_reason,
    array_to_json(ARRAY(
      SELECT line FROM delivery_lines dl
      CROSS JOIN LATERAL (SELECT dl.id AS delivery_line_id, dl.sales_order_detail_id, dl.product_id,
        ${jsonDecimal('dl.quantity')} AS quantity, ${jsonDecimal('dl.returned_quantity')} AS returned_quantity) line
      WHERE dl.delivery_id = dv.id ORDER BY dl.line_no)) AS lines,
    ${jsonDateTime('dv.created_at')} AS created_at, dv.created_by, ${jsonDateTime('dv.updated_at')} AS updated_at
  ) shape)`;
