import type { EventType } from '@sales-order/contract';

import type { Db } from '../../db/transactions.js';
import { Prisma } from '../../generated/prisma/client.js';

/**
 * The outbox's write: the SQL that records events, for the statements and transactions that
 * change their subjects (orders/store, api-keys/store). An event is written by the change's own
 * statement (as one of its writable CTEs) or transaction, so it commits or rolls back with the
 * change: a failed write leaves no event, a committed one always has its event, whatever happens
 * to the process after the commit. The relay (outbox-relay.ts) later gives committed events their
 * place in commit order; nothing here waits for it.
 */

/**
 * The CTEs, for a statement's WITH list, that insert one event of `type` (an order's) per row of
 * `changed` (an SQL from-item whose columns are `sales_order_id`, `version` after the change,
 * `occurred_at`, the change's time, and `data`, the order's read shape as json) and put each on
 * the relay's queue. They are named `event` and `event_queued`: the embedding statement must not
 * use those names.
 */
export const eventInsertCtes = (type: EventType, changed: Prisma.Sql): Prisma.Sql => Prisma.sql`
  event AS (
    INSERT INTO events (type, subject_type, subject_id, version, occurred_at, data)
    SELECT ${type}::varchar, 'sales_order', c.sales_order_id, c.version, c.occurred_at, c.data FROM ${changed} c
    RETURNING seq),
  event_queued AS (INSERT INTO event_queue (event_seq) SELECT seq FROM event)`;

/** Writes the events of `changed` (see eventInsertCtes) as a statement of the transaction `db` holds. */
export const recordEvents = async (db: Db, type: EventType, changed: Prisma.Sql): Promise<void> => {
  await db.$executeRaw`WITH ${eventInsertCtes(type, changed)} SELECT 1`;
};

/** An event of a subject other than an order (an API key's): no version, `data` as the API shows it. */
export interface SubjectEvent {
  type: EventType;
  /** The subject's id (its kind is the type's part before the dot). */
  subjectId: number;
  data: unknown;
}

/**
 * The CTEs, for a statement's WITH list, that write an event of another subject than an order
 * and queue it for the relay (named `event` and `event_queued`, as eventInsertCtes'): `data` is
 * stored as the JSON text given, so it keeps its key order. For the change's own statement.
 */
export const subjectEventCtes = ({ type, subjectId, data }: SubjectEvent): Prisma.Sql => Prisma.sql`
  event AS (
    INSERT INTO events (type, subject_type, subject_id, version, data)
    VALUES (${type}::varchar, split_part(${type}::varchar, '.', 1), ${subjectId}::int, NULL, ${JSON.stringify(data)}::json)
    RETURNING seq),
  event_queued AS (INSERT INTO event_queue (event_seq) SELECT seq FROM event)`;

/**
 * The CTEs (named `event` and `event_queued`) that write one event of `type`, a subject other than
 * an order that still carries its order's version (a delivery's), per row of `changed` (columns
 * `subject_id`, `version`, `occurred_at`, `data` as json), and queue each for the relay.
 */
export const subjectEventInsertCtes = (type: EventType, changed: Prisma.Sql): Prisma.Sql => Prisma.sql`
  event AS (
    INSERT INTO events (type, subject_type, subject_id, version, occurred_at, data)
    SELECT ${type}::varchar, split_part(${type}::varchar, '.', 1), c.subject_id, c.version, c.occurred_at, c.data
    FROM ${changed} c
    RETURNING seq),
  event_queued AS (INSERT INTO event_queue (event_seq) SELECT seq FROM event)`;

/** Writes an event of another subject than an order (see subjectEventCtes) as a statement of the transaction `db` holds. */
export const recordSubjectEvent = async (db: Db, event: SubjectEvent): Promise<void> => {
  await db.$executeRaw`WITH ${subjectEventCtes(event)} SELECT 1`;
};
