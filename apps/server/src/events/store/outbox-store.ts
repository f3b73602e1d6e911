import type { EventType } from '@sales-order/contract';

import type { Db } from '../../db/transactions.js';
import { Prisma } from '../../generated/prisma/client.js';

/**
 * The outbox's write: the SQL that records events, for the statements and transactions that
 * change orders (orders/store). An event is written by the change's own statement (as one of
 * its writable CTEs) or transaction, so it commits or rolls back with the change: a failed
 * write leaves no event, a committed one always has its event, whatever happens to the process
 * after the commit. The relay (outbox-relay.ts) later gives committed events their place in
 * commit order; nothing here waits for it.
 */

/**
 * The CTEs, for a statement's WITH list, that insert one event of `type` per row of `changed`
 * (an SQL from-item whose columns are `sales_order_id`, `version` after the change,
 * `occurred_at`, the change's time, and `data`, the order's read shape as json) and put each on the relay's queue. They are named `event` and
 * `event_queued`: the embedding statement must not use those names.
 */
export const eventInsertCtes = (type: EventType, changed: Prisma.Sql): Prisma.Sql => Prisma.sql`
  event AS (
    INSERT INTO events (type, sales_order_id, version, occurred_at, data)
    SELECT ${type}::varchar, c.sales_order_id, c.version, c.occurred_at, c.data FROM ${changed} c
    RETURNING seq),
  event_queued AS (INSERT INTO event_queue (event_seq) SELECT seq FROM event)`;

/** Writes the events of `changed` (see eventInsertCtes) as a statement of the transaction `db` holds. */
export const recordEvents = async (db: Db, type: EventType, changed: Prisma.Sql): Promise<void> => {
  await db.$executeRaw`WITH ${eventInsertCtes(type, changed)} SELECT 1`;
};
