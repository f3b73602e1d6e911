import { Prisma } from '../../generated/prisma/client.js';

/**
 * The order's read shape (GET /sales-orders/{id}, the contract's SalesOrderSchema) as JSON built
 * by PostgreSQL: the one fragment that the read store (the order as read) and the event store (the
 * order as each event carries it) both use, so the two cannot say different things.
 *
 * The text is the contract's canonical JSON, exactly what `JSON.stringify` writes for the parsed
 * value, so the service passes it through unparsed (shared/json-text.ts) and an order's entity tag,
 * a digest of that text, is the same whether taken from the text or from the parsed order:
 * - `row_to_json` and `array_to_json` write no spaces (`json_build_object` and `json_agg` do);
 * - keys come from the column names, in the schema's order;
 * - decimals are JSON numbers written as JavaScript writes them: NUMERIC without trailing zeros
 *   (`trim_scale`: 99.9, 3, 0), exact within the contract's ranges;
 * - instants are the spec's DateTime in UTC whatever the session's TimeZone, dates YYYY-MM-DD.
 * test/read-shapes.test.ts holds every rendering here to the contract's schemas with a strict
 * parse and to that identity.
 */

/** The spec's DateTime (`YYYY-MM-DD HH:mm:ss`, UTC, to the second) of a timestamptz column. */
export const jsonDateTime = (column: string): Prisma.Sql =>
  Prisma.raw(`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')`);

/** A calendar date column as YYYY-MM-DD (to_char: the same whatever the session's DateStyle). */
export const jsonDate = (column: string): Prisma.Sql => Prisma.raw(`to_char(${column}, 'YYYY-MM-DD')`);

/** A NUMERIC column as the contract's JSON number: no trailing zeros, as JavaScript prints it. */
export const jsonDecimal = (column: string): Prisma.Sql => Prisma.raw(`trim_scale(${column})`);

/**
 * What a line `d` (sales_order_details) still has to deliver: ordered - (delivered - returned) -
 * short-closed, never below 0. The one expression of it: the read shape and the order's
 * delivery status (deliveries/store) use it.
 */
export const PENDING_QUANTITY = Prisma.raw(
  'greatest(d.quantity - (d.delivered_quantity - d.returned_quantity) - d.short_closed_quantity, 0)',
);

/**
 * The delivery status of the order row `so` from its lines as they stand: `delivered` when no line
 * has anything pending, `partly_delivered` when something is delivered net of returns, else
 * `not_delivered`; on exact quantities. Written by every change of what lines hold of deliveries.
 */
export const DELIVERY_STATUS_OF_ORDER = Prisma.sql`CASE
    WHEN NOT EXISTS (SELECT 1 FROM sales_order_details d WHERE d.sales_order_id = so.id
                     AND d.quantity - (d.delivered_quantity - d.returned_quantity) - d.short_closed_quantity > 0)
      THEN 'delivered'
    WHEN EXISTS (SELECT 1 FROM sales_order_details d WHERE d.sales_order_id = so.id
                 AND d.delivered_quantity - d.returned_quantity > 0)
      THEN 'partly_delivered'
    ELSE 'not_delivered' END`;

/**
 * Where a statement's order lines and charges are: from-items with the columns of
 * sales_order_details and sales_order_other_charges (the tables, or the RETURNING of the
 * statement's own inserts).
 */
export interface OrderContents {
  lines: Prisma.Sql;
  charges: Prisma.Sql;
}

export const ORDER_TABLES: OrderContents = {
  lines: Prisma.sql`sales_order_details`,
  charges: Prisma.sql`sales_order_other_charges`,
};

/** An order's two lists in its read shape (json arrays), as SQL expressions. */
export interface OrderLists {
  details: Prisma.Sql;
  otherCharges: Prisma.Sql;
}

/**
 * The lists of the order whose id is `orderId` (an SQL expression), its lines and charges from
 * `contents`, in `line_no` order. Each list is an `ARRAY(subquery)`, which holds the rows in the
 * order the subquery's own ORDER BY returns them: for the tables, the (sales_order_id, line_no)
 * index reads them in that order, with no sort. `array_agg(... ORDER BY line_no)` sorted them
 * again every time (PostgreSQL 15 does not skip the sort of an ordered aggregate for sorted
 * input), a sixth of a 500-line read's time in the statement
 * (docs/decisions/reads-in-one-statement.md). A create builds them before its series' counter is locked (order-write-store.ts).
 */
export const orderLists = ({ lines, charges }: OrderContents, orderId: Prisma.Sql): OrderLists => ({
  details: Prisma.sql`array_to_json(ARRAY(
      SELECT line
      FROM ${lines} d JOIN products p ON p.id = d.product_id
      CROSS JOIN LATERAL (SELECT d.id AS sales_order_detail_id, d.product_id, p.name AS product_name, d.packsize_id,
        ${jsonDecimal('d.quantity')} AS quantity, ${jsonDecimal('d.rate')} AS rate,
        ${jsonDecimal('d.amount')} AS amount, d.remarks, ${jsonDecimal('d.delivered_quantity')} AS delivered_quantity,
        ${jsonDecimal('d.returned_quantity')} AS returned_quantity,
        trim_scale(${PENDING_QUANTITY}) AS pending_quantity,
        ${jsonDecimal('d.short_closed_quantity')} AS short_closed_quantity) line
      WHERE d.sales_order_id = ${orderId} ORDER BY d.line_no))`,
  otherCharges: Prisma.sql`array_to_json(ARRAY(
      SELECT charge
      FROM ${charges} ch
      CROSS JOIN LATERAL (SELECT ch.id AS other_charge_id, ch.description, ${jsonDecimal('ch.amount')} AS amount) charge
      WHERE ch.sales_order_id = ${orderId} ORDER BY ch.line_no))`,
});

/**
 * The read shape of the order row `o` (an alias over sales_orders' columns, which the embedding
 * statement bounds by the caller's scope) as json, its lists those of `o` in `contents`
 * (orderLists), or the `lists` given: expressions a statement built before.
 */
export const orderReadShape = (
  contents: OrderContents = ORDER_TABLES,
  { details, otherCharges }: OrderLists = orderLists(contents, Prisma.sql`o.id`),
): Prisma.Sql => Prisma.sql`(
  SELECT row_to_json(shape) FROM (SELECT
    o.id AS sales_order_id, o.sales_order_no, o.customer_id,
    (SELECT c.name FROM customers c WHERE c.id = o.customer_id) AS customer_name,
    ${jsonDate('o.sales_order_date')} AS sales_order_date, o.location_id, o.financial_year_id,
    ${jsonDecimal('o.subtotal')} AS subtotal, ${jsonDecimal('o.other_charges_total')} AS other_charges_total,
    ${jsonDecimal('o.grand_total')} AS grand_total, o.remarks,
    ${details} AS details,
    ${otherCharges} AS other_charges,
    o.version, ${jsonDateTime('o.created_at')} AS created_at, ${jsonDateTime('o.updated_at')} AS updated_at,
    o.created_by, o.updated_by, o.status, ${jsonDateTime('o.status_changed_at')} AS status_changed_at,
    o.cancellation_reason, o.amended_from_id,
    o.field_officer_id, (SELECT fo.name FROM field_officers fo WHERE fo.id = o.field_officer_id) AS field_officer_name,
    o.port_id, (SELECT pt.name FROM ports pt WHERE pt.id = o.port_id) AS port_name,
    o.customer_reference, ${jsonDate('o.delivery_date')} AS delivery_date, o.delivery_status
  ) shape)`;
