import type { EventSubject, EventType } from '@sales-order/contract';

import type { AccessContext } from '../../auth/access-context.js';
import type { Db } from '../../db/transactions.js';
import { Prisma } from '../../generated/prisma/client.js';
import { visibleToEndpoint, visibleToReader } from './event-visibility.js';
import { endpointsNow, OWNER_NOW } from './webhook-endpoint-store.js';

/**
 * The statements that read, position and purge events (the outbox's write is ../outbox.ts).
 *
 * Commit order: an order's write inserts its event and a row on `event_queue`. The relay, one
 * run at a time across every instance (the lock on outbox_relay_state's row), takes the queued
 * events it can see, i.e. those whose transactions have committed, and gives them the next
 * positions (rows of `event_positions`), in a transaction of its own. Positions therefore only
 * grow in the order the relay saw commits, and a reader that has seen position p has seen every
 * position below it: a late-committing event gets a later position rather than a gap the reader
 * has already passed. Within one run, events take their insertion order (`seq`): a later
 * version of an order is always inserted after the earlier one committed, so versions of one
 * order are in order. Positioning writes two narrow rows' worth (a queue row out, a position
 * in), never a new version of the event itself.
 */

export interface FeedFilter {
  afterPosition: number;
  limit: number;
  /** Bytes of the events' data (JSON text) a page holds at most, but for its first event. */
  maxBytes: number;
  types?: EventType[];
  salesOrderId?: number;
  /** The reader: only the events it may see (event-visibility.ts). */
  reader: Pick<AccessContext, 'method' | 'subject' | 'permissions' | 'locations'>;
}

/** An event as stored, in the API's terms but for its subject, which the feed names per kind. */
export interface FeedRow {
  id: string;
  type: EventType;
  occurred_at: string;
  subject_type: EventSubject;
  subject_id: number;
  /** An order's version; null for other subjects. */
  version: number | null;
  data: unknown;
  position: number;
}

export interface FeedPage {
  rows: FeedRow[];
  /** The last position given out, as the same snapshot saw it: every event up to it is readable. */
  highWater: number;
  /** Whether events follow the page's last one (past its limit or its bytes). */
  more: boolean;
}

/**
 * An endpoint and a subject (an order, a key) with new deliveries: one delivery job's key. The
 * subject's deliveries to the endpoint go out one at a time, in position order.
 */
export interface DeliveryKey {
  endpoint_id: number;
  subject_type: EventSubject;
  subject_id: number;
}

export interface PositionedBatch {
  positioned: number;
  keys: DeliveryKey[];
}

/** The event columns as the feed and the deliveries read them: timestamps in the API's form. */
export const EVENT_COLUMNS = Prisma.sql`e.id::text AS id, e.type, to_char(e.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS occurred_at,
  e.subject_type, e.subject_id, e.version`;

export const eventStore = {
  /**
   * One page of the feed after a position, in position order, with the high-water mark read in
   * the same snapshot: at most `limit` events, and no more than `maxBytes` of their data but for
   * the first, which always comes (as the order history's pages). Reads `limit` + 1 events to tell
   * whether more follow; only the kept ones' data leaves the database.
   */
  page: async (
    db: Db,
    { afterPosition, limit, maxBytes, types, salesOrderId, reader }: FeedFilter,
  ): Promise<FeedPage> => {
    const byType = types ? Prisma.sql`AND e.type = ANY(${types}::varchar[])` : Prisma.empty;
    const byOrder = salesOrderId === undefined ? Prisma.empty : Prisma.sql`AND p.sales_order_id = ${salesOrderId}::int`;
    const visible = visibleToReader(reader);
    const rows = await db.$queryRaw<
      (Omit<FeedRow, 'position'> & { position: bigint | null; high_water: bigint; more: boolean })[]
    >`
      WITH candidates AS (
        SELECT c.*, row_number() OVER w AS n, sum(octet_length(c.data::text)) OVER w AS running
        FROM (
          SELECT ${EVENT_COLUMNS}, e.data, p.position
          FROM event_positions p JOIN events e ON e.seq = p.event_seq
          WHERE p.position > ${afterPosition}::bigint ${byType} ${byOrder} AND ${visible}
          ORDER BY p.position
          LIMIT ${limit + 1}::int) c
        WINDOW w AS (ORDER BY c.position)),
      kept AS (
        SELECT * FROM candidates WHERE n <= ${limit}::int AND (n = 1 OR running <= ${maxBytes}::bigint))
      SELECT s.last_position AS high_water,
        (SELECT count(*) FROM candidates) > (SELECT count(*) FROM kept) AS more,
        kept.id, kept.type, kept.occurred_at, kept.subject_type, kept.subject_id, kept.version, kept.data, kept.position
      FROM outbox_relay_state s
      LEFT JOIN kept ON true
      WHERE s.id = 1
      ORDER BY kept.position`;
    return {
      highWater: Number(rows[0]!.high_water),
      more: rows[0]!.more,
      rows: rows
        .filter((row) => row.position !== null)
        .map(({ high_water: _highWater, more: _more, position, ...row }) => ({ ...row, position: Number(position) })),
    };
  },

  /** The oldest position kept (the purge removes the oldest events); null when none is kept. */
  oldestPosition: async (db: Db): Promise<number | null> => {
    const [row] = await db.$queryRaw<{ oldest: bigint | null }[]>`SELECT min(position) AS oldest FROM event_positions`;
    return row!.oldest === null ? null : Number(row!.oldest);
  },

  /** Whether some committed event still waits for its position: the relay's cheap idle check. */
  anyUnpositioned: async (db: Db): Promise<boolean> => {
    const [row] = await db.$queryRaw<{ waiting: boolean }[]>`
      SELECT EXISTS (SELECT 1 FROM event_queue) AS waiting`;
    return row!.waiting;
  },

  /**
   * Takes the relay's lock for the rest of the transaction: the last position given out, or
   * null when another instance's relay holds it (that one positions now; this one skips).
   */
  lockRelay: async (tx: Db): Promise<number | null> => {
    const [row] = await tx.$queryRaw<{ last_position: bigint }[]>`
      SELECT last_position FROM outbox_relay_state WHERE id = 1 FOR UPDATE SKIP LOCKED`;
    return row ? Number(row.last_position) : null;
  },

  /**
   * Under the relay's lock, in a statement after it (so its snapshot sees what the previous
   * holder committed): positions up to `batchSize` committed events after `lastPosition`,
   * moves the relay's last position, and creates a pending delivery of each to every enabled
   * endpoint that takes its type and may see it (event-visibility.ts). Answers how many it
   * positioned and which (endpoint, subject) pairs got deliveries.
   */
  positionCommitted: async (tx: Db, lastPosition: number, batchSize: number): Promise<PositionedBatch> => {
    const rows = await tx.$queryRaw<
      {
        positioned: number;
        endpoint_id: number | null;
        subject_type: EventSubject | null;
        subject_id: number | null;
      }[]
    >`
      -- location scope: the relay positions every event; each endpoint's own (event-visibility.ts) picks its deliveries
      WITH endpoints_now AS MATERIALIZED (${endpointsNow(Prisma.sql`w.enabled`)}),
      batch AS (
        SELECT event_seq AS seq, row_number() OVER (ORDER BY event_seq) AS n
        FROM event_queue ORDER BY event_seq LIMIT ${batchSize}::int),
      dequeued AS (DELETE FROM event_queue q USING batch b WHERE q.event_seq = b.seq),
      positioned AS (
        INSERT INTO event_positions (position, event_seq, sales_order_id)
        SELECT ${lastPosition}::bigint + b.n, e.seq, CASE WHEN e.subject_type = 'sales_order' THEN e.subject_id END
        FROM batch b JOIN events e ON e.seq = b.seq
        RETURNING event_seq AS seq, position),
      moved AS (
        UPDATE outbox_relay_state SET last_position = last_position + (SELECT count(*) FROM batch)
        WHERE id = 1 AND EXISTS (SELECT 1 FROM batch)),
      deliveries AS (
        INSERT INTO webhook_deliveries (endpoint_id, event_seq, event_position, subject_type, subject_id, next_attempt_at)
        SELECT w.id, p.seq, p.position, e.subject_type, e.subject_id, now()
        FROM positioned p JOIN events e ON e.seq = p.seq
        JOIN endpoints_now w ON (w.event_types IS NULL OR e.type = ANY(w.event_types))
          AND ${visibleToEndpoint(OWNER_NOW)}
        RETURNING endpoint_id, subject_type, subject_id)
      SELECT (SELECT count(*) FROM batch)::int AS positioned, k.endpoint_id, k.subject_type, k.subject_id
      FROM (SELECT 1) one
      LEFT JOIN (SELECT DISTINCT endpoint_id, subject_type, subject_id FROM deliveries) k ON true`;
    return {
      positioned: rows[0]!.positioned,
      keys: rows.flatMap(({ endpoint_id, subject_type, subject_id }) =>
        endpoint_id === null || subject_type === null || subject_id === null
          ? []
          : [{ endpoint_id, subject_type, subject_id }],
      ),
    };
  },

  /**
   * Deletes those of the oldest `batchSize` events (by insertion) that are past retention and
   * positioned, with their positions and deliveries (foreign keys cascade): one bounded statement, whatever the table holds.
   * Insertion order follows time but for transactions running side by side, so none deleted
   * means the old end is done.
   */
  purgeOldest: async (db: Db, retentionDays: number, batchSize: number): Promise<number> =>
    db.$executeRaw`
      WITH oldest AS (SELECT seq, occurred_at FROM events ORDER BY seq LIMIT ${batchSize}::int)
      DELETE FROM events e USING oldest o
      WHERE e.seq = o.seq AND o.occurred_at < now() - make_interval(days => ${retentionDays}::int)
        AND EXISTS (SELECT 1 FROM event_positions p WHERE p.event_seq = o.seq)`,

  /**
   * What waits, for the metrics: events committed and not yet positioned by the relay, webhook
   * deliveries still pending, and how long the oldest of those has waited (seconds; 0 when none).
   */
  backlog: async (db: Db): Promise<{ queued: number; pending: number; oldestPendingSeconds: number }> => {
    const [row] = await db.$queryRaw<{ queued: number; pending: number; oldest_pending_seconds: number }[]>`
      SELECT (SELECT count(*)::int FROM event_queue) AS queued,
        count(*)::int AS pending,
        coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS oldest_pending_seconds
      FROM webhook_deliveries WHERE status = 'pending'`;
    return { queued: row!.queued, pending: row!.pending, oldestPendingSeconds: row!.oldest_pending_seconds };
  },
};
