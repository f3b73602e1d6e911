import type { EventType } from '@sales-order/contract';

import type { Db } from '../../db/transactions.js';
import { LOCKED_IN_SCOPE } from '../../db/within-locations.js';
import { eventInsertCtes, recordEvents } from '../../events/store/outbox-store.js';
import { Prisma } from '../../generated/prisma/client.js';
import { ORDER_TABLES, type OrderContents, type OrderLists, orderReadShape } from './order-read-shape.js';

/**
 * The events of order changes: each change's event, written by the change's own statement or
 * transaction (events/store/outbox-store.ts), carries the order's read shape right after the change. That
 * shape is built in SQL by the fragment GET /sales-orders/{id} reads with (order-read-shape.ts),
 * from the rows the change made or left, so a create stays one statement; the events test
 * compares the two after every kind of change.
 */

/**
 * The event of a change as CTEs of the change's own statement (named `event` and
 * `event_queued`): one per row of `orders` (a from-item with every column of sales_orders: the
 * statement's RETURNING *), read with the lines and charges of `contents` (the statement's own
 * inserts; the tables by default, which a statement that does not change them may read), or
 * with `lists` the statement built before (orderLists).
 */
export const orderEventCtes = (
  type: EventType,
  orders: Prisma.Sql,
  contents: OrderContents = ORDER_TABLES,
  lists?: OrderLists,
): Prisma.Sql => eventInsertCtes(type, changedOrders(orders, contents, lists));

/**
 * The rows of `orders` (as orderEventCtes takes them) as an event records them: the order's
 * id, version, stamp and read shape (`data`, json). A statement that also answers with the
 * order makes this a CTE of its own and passes it to eventInsertCtes, so the shape is built once.
 */
export const changedOrders = (
  orders: Prisma.Sql,
  contents: OrderContents = ORDER_TABLES,
  lists?: OrderLists,
): Prisma.Sql =>
  Prisma.sql`(SELECT o.id AS sales_order_id, o.version, o.updated_at AS occurred_at,
        ${orderReadShape(contents, lists)} AS data
      FROM ${orders} o)`;

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
        ${orderReadShape()} AS data
      FROM sales_orders o WHERE o.id = ${salesOrderId}::int AND ${LOCKED_IN_SCOPE})`,
  );
};
