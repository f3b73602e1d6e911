import type { EventType } from '@sales-order/contract';

import type { Db } from '../../db/transactions.js';
import { eventInsertCtes, recordEvents } from '../../events/store/outbox-store.js';
import { Prisma } from '../../generated/prisma/client.js';
import { LOCKED_IN_SCOPE } from './order-scope.js';

/**
 * The events of order changes: each change's event, written by the change's own statement or
 * transaction (events/store/outbox-store.ts), carries the order's read shape right after the change. That
 * shape is built here in SQL, from the rows the change made or left, so a create stays one
 * statement. It must say what GET /sales-orders/{id} says (order-read-store.ts): the events test
 * compares the two after every kind of change.
 */

const dateTime = (column: Prisma.Sql) => Prisma.sql`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')`;

/**
 * The read shape of the order row `o` (an alias over sales_orders' columns) as json, its lines
 * from `lines` and charges from `charges` (from-items with the columns of sales_order_details
 * and sales_order_other_charges: the tables, or the RETURNING of the statement's own inserts).
 * Decimals go into the json as numeric, which JSON numbers carry exactly in the contract's ranges.
 */
const readShapeJson = (lines: Prisma.Sql, charges: Prisma.Sql) => Prisma.sql`json_build_object(
  'sales_order_id', o.id, 'sales_order_no', o.sales_order_no, 'customer_id', o.customer_id,
  'customer_name', (SELECT c.name FROM customers c WHERE c.id = o.customer_id),
  'sales_order_date', to_char(o.sales_order_date, 'YYYY-MM-DD'), 'location_id', o.location_id,
  'financial_year_id', o.financial_year_id, 'subtotal', o.subtotal, 'other_charges_total', o.other_charges_total,
  'grand_total', o.grand_total, 'remarks', o.remarks,
  'details', coalesce((
    SELECT json_agg(json_build_object('sales_order_detail_id', d.id, 'product_id', d.product_id, 'product_name', p.name,
        'packsize_id', d.packsize_id, 'quantity', d.quantity, 'rate', d.rate, 'amount', d.amount, 'remarks', d.remarks)
      ORDER BY d.line_no)
    FROM ${lines} d JOIN products p ON p.id = d.product_id WHERE d.sales_order_id = o.id), '[]'),
  'other_charges', coalesce((
    SELECT json_agg(json_build_object('other_charge_id', ch.id, 'description', ch.description, 'amount', ch.amount)
      ORDER BY ch.line_no)
    FROM ${charges} ch WHERE ch.sales_order_id = o.id), '[]'),
  'version', o.version, 'created_at', ${dateTime(Prisma.sql`o.created_at`)}, 'updated_at', ${dateTime(Prisma.sql`o.updated_at`)},
  'created_by', o.created_by, 'updated_by', o.updated_by,
  'status', o.status, 'status_changed_at', ${dateTime(Prisma.sql`o.status_changed_at`)},
  'cancellation_reason', o.cancellation_reason, 'amended_from_id', o.amended_from_id,
  'field_officer_id', o.field_officer_id,
  'field_officer_name', (SELECT fo.name FROM field_officers fo WHERE fo.id = o.field_officer_id),
  'port_id', o.port_id, 'port_name', (SELECT pt.name FROM ports pt WHERE pt.id = o.port_id),
  'customer_reference', o.customer_reference, 'delivery_date', to_char(o.delivery_date, 'YYYY-MM-DD'))`;

const TABLES = { lines: Prisma.sql`sales_order_details`, charges: Prisma.sql`sales_order_other_charges` };

/**
 * The event of a change as CTEs of the change's own statement (named `event` and
 * `event_queued`): one per row of `orders` (a from-item with every column of sales_orders: the
 * statement's RETURNING *), read with the lines and charges of `contents` (the statement's own
 * inserts; the tables by default, which a statement that does not change them may read).
 */
export const orderEventCtes = (
  type: EventType,
  orders: Prisma.Sql,
  contents: { lines: Prisma.Sql; charges: Prisma.Sql } = TABLES,
): Prisma.Sql =>
  eventInsertCtes(
    type,
    Prisma.sql`(SELECT o.id AS sales_order_id, o.version, o.updated_at AS occurred_at,
        ${readShapeJson(contents.lines, contents.charges)} AS data
      FROM ${orders} o)`,
  );

/**
 * Records the event of a change already written in the transaction `tx` holds, reading the
 * order as it now stands there: one statement, the last of the change's transaction (an
 * update's). A change made by one statement embeds orderEventCtes instead (create, amend,
 * delete and the transitions).
 */
export const recordOrderEvent = async (tx: Db, salesOrderId: number, type: EventType): Promise<void> => {
  await recordEvents(
    tx,
    type,
    Prisma.sql`(SELECT o.id AS sales_order_id, o.version, o.updated_at AS occurred_at,
        ${readShapeJson(TABLES.lines, TABLES.charges)} AS data
      FROM sales_orders o WHERE o.id = ${salesOrderId}::int AND ${LOCKED_IN_SCOPE})`,
  );
};
