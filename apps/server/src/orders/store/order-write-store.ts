import type { EventType, HistoryChanges, LicenceWarning, SalesOrder, SalesOrderStatus } from '@sales-order/contract';

import type { Scope } from '../../auth/scope.js';
import { sqlStateOf } from '../../db/database-errors.js';
import type { SqlDb } from '../../db/sql-db.js';
import { StatementReader } from '../../db/statement-reader.js';
import { type Db, type Reader, readRows } from '../../db/transactions.js';
import { ACROSS_LOCATIONS, LOCKED_IN_SCOPE, withinLocations } from '../../db/within-locations.js';
import { eventInsertCtes } from '../../events/store/outbox-store.js';
import { Prisma } from '../../generated/prisma/client.js';
import { JsonText } from '../../shared/json-text.js';
import { type CounterClaim, SEQUENCE_MIN_DIGITS, settleCounter } from '../numbering.js';
import { HEADER_FIELDS, type HeaderField } from '../order.js';
import type { ChargeToWrite, LineToWrite, TotalsToWrite } from '../order-columns.js';
import type { HistoryEntryToWrite } from '../order-history.js';
import type { OrderHeaderValues, PreparedOrder } from '../order-write-model.js';
import { changedOrders, orderEventCtes } from './order-event-store.js';
import { DELIVERY_STATUS_OF_ORDER, orderLists } from './order-read-shape.js';
import type { RenderedOrder } from './order-read-store.js';
import { type FoundReferences, type ReferenceLookup, referencesQuery } from './order-reference-store.js';

/**
 * Every statement that writes an order, its lines, charges and history, from what the write
 * model prepared (order-write-model.ts). All raw SQL: Prisma compiles a query plan for each
 * model query shape it has not seen (and for every createMany), on the event loop; a raw
 * statement is sent as it is. Each write is a fixed number of statements whatever the number of
 * orders and lines: headers go in as one json document read by jsonb_populate_record (so the
 * column types are the table's, and the column lists come from HEADER_FIELDS), lines and
 * charges as one json document each, read by json_to_recordset. Decimals travel as text and
 * are cast to numeric in SQL, never through a JS number.
 */

export interface CreatedOrder {
  id: number;
  salesOrderNo: string;
  /**
   * Where the series' counter stood once the order took its number (null for a free-form
   * number): a supplied series number more than ORDER_NUMBER_MAX_AHEAD past it was refused
   * (numbering.ts counterAfterSuppliedNumber), and its caller rolls the write back.
   */
  counter: bigint | null;
}

/** A live order's header, totals, version and status as `lockLive` reads them under its row lock. */
export type LockedOrder = OrderHeaderValues &
  TotalsToWrite & {
    sales_order_no: string;
    version: number;
    status: SalesOrderStatus;
  };

export interface StoredContents {
  lines: (LineToWrite & { line_no: number })[];
  charges: (ChargeToWrite & { line_no: number })[];
}

/** The statement of contentsOf: one row, the lines and charges as JSON arrays. */
const contentsQuery = (id: number): Prisma.Sql => Prisma.sql`
  SELECT
    coalesce((SELECT json_agg(json_build_object('line_no', line_no, 'product_id', product_id,
        'packsize_id', packsize_id, 'quantity', quantity::text, 'rate', rate::text, 'amount', amount::text,
        'remarks', remarks) ORDER BY line_no)
      FROM sales_order_details WHERE sales_order_id = ${id}::int), '[]') AS lines,
    coalesce((SELECT json_agg(json_build_object('line_no', line_no, 'description', description,
        'amount', amount::text) ORDER BY line_no)
      FROM sales_order_other_charges WHERE sales_order_id = ${id}::int), '[]') AS charges`;

const UNIQUE_VIOLATION = '23505';

/**
 * A unique-constraint violation: Prisma's own code, or SQLSTATE 23505 read from the driver
 * adapter's error field (a raw statement reports it there), never from serialised text.
 */
export const isUniqueViolation = (error: unknown): boolean =>
  (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') ||
  sqlStateOf(error) === UNIQUE_VIOLATION;

/**
 * Lines and charges of the orders `orders` names (an SQL from-item aliased `i`, with the
 * columns `ord`, the order's place in `lines` and `charges`, `id`, and the copies its lines
 * carry: `order_date` and `consumes_quota`, checked by a statement trigger that rewrites lines
 * only when they differ from the order, migration 20261127120000_line_copies_per_statement),
 * one INSERT per table as CTEs named `lines` and `charges`, whatever the number of orders and lines. Each list travels
 * as one json document of the prepared rows, a line's number its place in its order's set:
 * as arrays (one per column, through unnest) Prisma walked and re-serialised every element and
 * pg quoted each one, most of a 500-line create's CPU in the service outside zod
 * (docs/decisions/large-orders.md).
 */
const contentsInserts = (orders: Prisma.Sql, lines: LineToWrite[][], charges: ChargeToWrite[][]) => Prisma.sql`
  lines AS (
    INSERT INTO sales_order_details (sales_order_id, line_no, product_id, packsize_id, quantity, rate, amount, remarks,
      order_date, consumes_quota)
    SELECT i.id, l.line_no, l.product_id, l.packsize_id, l.quantity, l.rate, l.amount, l.remarks,
      i.order_date, i.consumes_quota
    FROM json_array_elements(${JSON.stringify(lines)}::json) WITH ORDINALITY AS s(rows, ord)
      CROSS JOIN LATERAL ROWS FROM (json_to_recordset(s.rows) AS (product_id int, packsize_id int, quantity numeric,
        rate numeric, amount numeric, remarks text)) WITH ORDINALITY
        AS l(product_id, packsize_id, quantity, rate, amount, remarks, line_no)
      JOIN ${orders} ON i.ord = s.ord
    RETURNING *
  ),
  charges AS (
    INSERT INTO sales_order_other_charges (sales_order_id, line_no, description, amount)
    SELECT i.id, c.line_no, c.description, c.amount
    FROM json_array_elements(${JSON.stringify(charges)}::json) WITH ORDINALITY AS s(rows, ord)
      CROSS JOIN LATERAL ROWS FROM (json_to_recordset(s.rows) AS (description text, amount numeric)) WITH ORDINALITY
        AS c(description, amount, line_no)
      JOIN ${orders} ON i.ord = s.ord
    RETURNING *
  )`;

/** A new order's lines and charges: the insert statement's own CTEs (contentsInserts). */
const NEW_ORDER_CONTENTS = { lines: Prisma.sql`lines`, charges: Prisma.sql`charges` };
/** Their lists in the read shape of each order of the statement's `input` (`i`), built before the counter lock. */
const NEW_ORDER_LISTS = orderLists(NEW_ORDER_CONTENTS, Prisma.sql`i.id`);

/** Column lists from constants (never from input): the header's, and what a new order writes besides. */
const columns = (names: readonly string[], alias?: string) =>
  Prisma.raw(names.map((name) => (alias ? `${alias}.${name}` : name)).join(', '));
const TOTAL_COLUMNS = ['subtotal', 'other_charges_total', 'grand_total'] as const;
const NEW_ORDER_COLUMNS = [...HEADER_FIELDS, ...TOTAL_COLUMNS, 'created_by', 'updated_by', 'amended_from_id'] as const;
const UPDATE_COLUMNS = [...HEADER_FIELDS, ...TOTAL_COLUMNS] as const;

/** A prepared order's columns as one json object, read back in SQL by jsonb_populate_record over sales_orders. */
const columnsDoc = (order: PreparedOrder) => ({
  ...order.header,
  ...order.totals,
  created_by: order.history.actor,
  updated_by: order.history.actor,
  amended_from_id: order.amendedFromId,
});

/**
 * How each order of a list gets its number in the insert statement. `back`: the order takes
 * the series' counter after the statement minus `back` (the last of its series takes the
 * counter itself); otherwise `salesOrderNo` and `sequence` are written as they are.
 */
interface NumberToWrite {
  prefix?: string;
  back?: number;
  salesOrderNo?: string;
  sequence?: string | null;
}

/** How a list moves its series' counters, in the insert statement or settled before it. */
type CounterMoves =
  /** Per series, `next` orders take the next numbers. */
  | { kind: 'next'; series: { location_id: number; financial_year_id: number; next: number }[] }
  /** One order's supplied series number moves its counter up to it (bounded by maxAhead). */
  | { kind: 'supplied'; location_id: number; financial_year_id: number; sequence: bigint }
  /** The counters were locked and read by lockCounters; each is set to where the list leaves it. */
  | { kind: 'settled'; series: { location_id: number; financial_year_id: number; last: bigint }[] };

const seriesKey = (header: OrderHeaderValues) => `${header.location_id}:${header.financial_year_id}`;
const seriesIds = ({ location_id, financial_year_id }: OrderHeaderValues) => ({ location_id, financial_year_id });

/**
 * The statement's CTE `counter` (location_id, financial_year_id, last_sequence): the counters
 * after the moves. `after` is a condition on CTEs written before it (a one-time filter, run before
 * the counter rows are touched): what the statement writes there is written before it locks them.
 */
const counterCte = (moves: CounterMoves, maxAhead: bigint, after: Prisma.Sql): Prisma.Sql => {
  switch (moves.kind) {
    case 'next':
      // Locked in one order (location, year), so that two lists never wait for each other crosswise.
      return Prisma.sql`counter AS (
        INSERT INTO sales_order_counters AS c (location_id, financial_year_id, last_sequence)
        SELECT * FROM unnest(${moves.series.map((move) => move.location_id)}::int[],
          ${moves.series.map((move) => move.financial_year_id)}::int[], ${moves.series.map((move) => move.next)}::bigint[])
        WHERE ${after}
        ORDER BY 1, 2
        ON CONFLICT (location_id, financial_year_id) DO UPDATE SET last_sequence = c.last_sequence + EXCLUDED.last_sequence
        RETURNING location_id, financial_year_id, last_sequence)`;
    case 'supplied': {
      const { sequence } = moves;
      // Too far ahead: the counter stays where it is, and the caller sees that from it.
      return Prisma.sql`counter AS (
        INSERT INTO sales_order_counters AS c (location_id, financial_year_id, last_sequence)
        SELECT ${moves.location_id}::int, ${moves.financial_year_id}::int,
          CASE WHEN ${sequence}::bigint <= ${maxAhead}::bigint THEN ${sequence}::bigint ELSE 0 END
        WHERE ${after}
        ON CONFLICT (location_id, financial_year_id) DO UPDATE SET last_sequence = CASE
          WHEN ${sequence}::bigint > c.last_sequence + ${maxAhead}::bigint THEN c.last_sequence
          ELSE greatest(c.last_sequence, ${sequence}::bigint) END
        RETURNING location_id, financial_year_id, last_sequence)`;
    }
    case 'settled':
      return Prisma.sql`counter AS (
        UPDATE sales_order_counters c SET last_sequence = m.last
        FROM unnest(${moves.series.map((move) => move.location_id)}::int[],
          ${moves.series.map((move) => move.financial_year_id)}::int[], ${moves.series.map((move) => move.last)}::bigint[])
          AS m(location_id, financial_year_id, last)
        WHERE c.location_id = m.location_id AND c.financial_year_id = m.financial_year_id AND ${after}
        RETURNING c.location_id, c.financial_year_id, c.last_sequence)`;
  }
};

const historyJson = (changes: HistoryChanges) => JSON.stringify(changes);

/**
 * The history row of a change, written by the statement that completes it: `changed` is a CTE
 * that returned the order's `id`, `version` and `updated_at` after the change.
 */
const historyInsert = (changed: Prisma.Sql, history: HistoryEntryToWrite, changes: Prisma.Sql) => Prisma.sql`
  INSERT INTO sales_order_history (sales_order_id, version, action, at, by, changes, reason, acknowledged_warnings)
  SELECT c.id, c.version, ${history.action}, c.updated_at, ${history.actor}::text, ${changes},
    ${history.reason ?? null}::text,
    ${history.acknowledgedWarnings === undefined ? null : JSON.stringify(history.acknowledgedWarnings)}::jsonb
  FROM ${changed} c`;

/**
 * Every change is stamped when its last statement runs, under the order's row lock (or, for a
 * create, after its series' counter lock): `clock_timestamp()`, not the transaction's start
 * (`now()`), which a writer that waited for a lock would carry from before the wait. So the
 * stamps of one order's changes follow their commit order, and a change commits within its
 * last statements of its stamp (docs/api.md, "Incremental sync").
 */
const STAMP = Prisma.sql`(SELECT clock_timestamp() AS at) stamp`;

/** The event each transition writes, by the status it moves the order to. */
const TRANSITION_EVENTS: Record<SalesOrderStatus, EventType> = {
  draft: 'sales_order.updated',
  confirmed: 'sales_order.confirmed',
  closed: 'sales_order.closed',
  cancelled: 'sales_order.cancelled',
};

/**
 * Locks the counters of the series a list of new orders takes numbers from (creating them at
 * 0), in (location, year) order, and reads where they stand: for a list whose numbers are
 * settled before its insert statement, in the same transaction.
 */
const lockCounters = async (db: Db, orders: readonly PreparedOrder[]): Promise<Map<string, bigint>> => {
  const series = new Map(
    orders
      .filter((order) => order.numbering && order.numbering.kind !== 'free-form')
      .map((order) => [seriesKey(order.header), order.header] as const),
  );
  const rows = await db.$queryRaw<{ location_id: number; financial_year_id: number; last_sequence: bigint }[]>`
    INSERT INTO sales_order_counters AS c (location_id, financial_year_id, last_sequence)
    SELECT m.location_id, m.financial_year_id, 0
    FROM unnest(${[...series.values()].map((header) => header.location_id)}::int[],
      ${[...series.values()].map((header) => header.financial_year_id)}::int[]) AS m(location_id, financial_year_id)
    ORDER BY m.location_id, m.financial_year_id
    ON CONFLICT (location_id, financial_year_id) DO UPDATE SET last_sequence = c.last_sequence
    RETURNING location_id, financial_year_id, last_sequence`;
  return new Map(rows.map((row) => [`${row.location_id}:${row.financial_year_id}`, BigInt(row.last_sequence)]));
};

/** The stored form of a bigint in a json document: its decimal text. */
const bigintText = (value: bigint | null) => (value === null ? null : value.toString());

/** Where each of a list of new orders gets its number, and how the list moves its series' counters. */
const planNumbers = (
  orders: readonly PreparedOrder[],
  lockedCounters: ReadonlyMap<string, bigint> | undefined,
  maxAhead: bigint,
): { numbers: NumberToWrite[]; moves: CounterMoves; counters: (bigint | null)[] | undefined } => {
  const numberings = orders.map((order) => {
    if (!order.numbering) throw new Error('insertOrders writes new orders: each needs its numbering');
    return order.numbering;
  });
  const bySeries = new Map<string, number[]>();
  numberings.forEach((numbering, index) => {
    if (numbering.kind === 'free-form') return;
    const key = seriesKey(orders[index]!.header);
    bySeries.set(key, [...(bySeries.get(key) ?? []), index]);
  });
  const seriesOf = (indexes: number[]) => orders[indexes[0]!]!.header;

  if (lockedCounters === undefined) {
    const numbers = numberings.map((numbering, index): NumberToWrite => {
      if (numbering.kind !== 'next')
        return {
          salesOrderNo: numbering.salesOrderNo,
          sequence: numbering.kind === 'supplied-series' ? numbering.sequence.toString() : null,
        };
      const peers = bySeries.get(seriesKey(orders[index]!.header))!;
      return { prefix: numbering.prefix, back: peers.length - 1 - peers.indexOf(index) };
    });
    const supplied = numberings.length === 1 && numberings[0]!.kind === 'supplied-series' ? numberings[0] : undefined;
    const moves: CounterMoves = supplied
      ? { kind: 'supplied', ...seriesIds(orders[0]!.header), sequence: supplied.sequence }
      : {
          kind: 'next',
          series: [...bySeries.values()].map((indexes) => ({
            ...seriesIds(seriesOf(indexes)),
            next: indexes.length,
          })),
        };
    return { numbers, moves, counters: undefined };
  }

  // Settled here from the locked counters: every number is written as it is.
  const numbers: NumberToWrite[] = numberings.map((numbering) =>
    numbering.kind === 'next'
      ? {}
      : {
          salesOrderNo: numbering.salesOrderNo,
          sequence: bigintText(numbering.kind === 'supplied-series' ? numbering.sequence : null),
        },
  );
  const counters: (bigint | null)[] = numberings.map(() => null);
  const series = [...bySeries].map(([key, indexes]) => {
    const settled = settleCounter(
      lockedCounters.get(key)!,
      indexes.map((index): CounterClaim => {
        const numbering = numberings[index]!;
        return numbering.kind === 'supplied-series'
          ? { kind: 'supplied', sequence: numbering.sequence }
          : { kind: 'next' };
      }),
      maxAhead,
    );
    indexes.forEach((index, at) => {
      const numbering = numberings[index]!;
      counters[index] = settled.counters[at]!;
      if (numbering.kind === 'next') {
        const sequence = settled.counters[at]!;
        numbers[index] = {
          salesOrderNo: `${numbering.prefix}${sequence.toString().padStart(SEQUENCE_MIN_DIGITS, '0')}`,
          sequence: sequence.toString(),
        };
      }
    });
    return {
      location_id: seriesOf(indexes).location_id,
      financial_year_id: seriesOf(indexes).financial_year_id,
      last: settled.last,
    };
  });
  return { numbers, moves: { kind: 'settled', series }, counters };
};

/**
 * Whether a list's numbers can be settled inside its insert statement: a single order, or a
 * list whose counters are moved by `next` orders only. Otherwise (a supplied series number in a
 * list) the counters are locked and read first, and the list settled in order from them
 * (numbering.ts settleCounter).
 */
const settlesInStatement = (orders: readonly PreparedOrder[]): boolean =>
  orders.length === 1 || orders.every((order) => order.numbering?.kind !== 'supplied-series');

export const orderWriteStore = {
  /**
   * Writes new orders (a create is a list of one; an amend's draft; a bulk create) in one
   * statement, whatever their number and their lines': inserts their lines and charges, then
   * moves their series' counters (locking those rows, in (location, year) order, to the
   * statement's commit: the lines' rows and index entries are not written under that lock),
   * inserts the orders numbered from them in list order (each series' `next` orders
   * consecutively), one `sales_order.created` (or `.amended`) event each, in list order, and
   * their history entries (each led by its `sales_order_no` change). Run alone it is its own
   * transaction: no BEGIN or COMMIT round trip, and the counters are locked for this one
   * statement only; a failed statement gives its numbers back. A list in which a supplied series
   * number shares its series with other orders has its counters locked and read by a statement
   * before (settlesInStatement): run it in a transaction. A supplied number too far ahead is
   * not refused here: the answer's `counter` says so, and the caller rolls back. Outside a
   * transaction, `db` may be the pool's StatementReader: no Prisma around the statement, whose
   * parameters (a 500-line order's ~100 KB of json) Prisma serialised into JSON and parsed back
   * (docs/decisions/create-in-one-statement.md).
   */
  insertOrders: async (db: Reader, orders: readonly PreparedOrder[], maxAhead: bigint): Promise<CreatedOrder[]> => {
    if (orders.length === 0) return [];
    const actions = new Set(orders.map((order) => order.history.action));
    if (actions.size !== 1 || !(actions.has('create') || actions.has('amend')))
      throw new Error('insertOrders writes a list of creates or of amends');
    const event: EventType = actions.has('amend') ? 'sales_order.amended' : 'sales_order.created';
    const settles = settlesInStatement(orders);
    if (!settles && db instanceof StatementReader)
      throw new Error('a list whose counters are locked before its insert is written in a transaction');
    const locked = settles ? undefined : await lockCounters(db as Db, orders);
    const { numbers, moves, counters } = planNumbers(orders, locked, maxAhead);
    const docs = orders.map((order, index) => ({
      ...columnsDoc(order),
      sales_order_no: numbers[index]!.salesOrderNo ?? null,
      sequence: numbers[index]!.sequence ?? null,
      prefix: numbers[index]!.prefix ?? null,
      back: numbers[index]!.back ?? null,
      action: order.history.action,
      actor: order.history.actor,
      changes: order.history.changes,
    }));
    const rows = await readRows<{ id: number; sales_order_no: string; counter: string | null }>(
      db,
      Prisma.sql`
      -- location scope: each order's location was held inside its creator's (locationScopeProblems)
      WITH input AS MATERIALIZED (
        -- A new order is a draft: its lines hold no quota.
        SELECT e.ord, e.doc, nextval('sales_orders_id_seq'::regclass)::int AS id,
          (e.doc ->> 'sales_order_date')::date AS order_date, false AS consumes_quota
        FROM jsonb_array_elements(${JSON.stringify(docs)}::jsonb) WITH ORDINALITY AS e(doc, ord)),
      -- Keyed by the orders' ids drawn above: a series' creates take turns for its counter row,
      -- which the statement holds to its commit, so lines and charges are written before it is
      -- locked (their keys checked at the statement's end, once the orders are in), and the
      -- event's lists of them built.
      ${contentsInserts(
        Prisma.sql`input i`,
        orders.map((order) => order.lines),
        orders.map((order) => order.charges),
      )},
      lists AS MATERIALIZED (SELECT i.id, ${NEW_ORDER_LISTS.details} AS details,
        ${NEW_ORDER_LISTS.otherCharges} AS other_charges FROM input i),
      ${counterCte(
        moves,
        maxAhead,
        Prisma.sql`(SELECT count(*) FROM lines) + (SELECT count(*) FROM charges) + (SELECT count(*) FROM lists) >= 0`,
      )},
      -- Stamped once the counters are locked (count(*) reads the counter rows to their end first).
      stamp AS MATERIALIZED (SELECT clock_timestamp() AS at FROM (SELECT count(*) FROM counter) locked),
      inserted AS (
        INSERT INTO sales_orders (id, sales_order_no, sequence, ${columns(NEW_ORDER_COLUMNS)},
          created_at, updated_at, status_changed_at)
        SELECT i.id,
          CASE WHEN n.sequence IS NULL THEN h.sales_order_no
            ELSE (i.doc ->> 'prefix') || lpad(n.sequence::text, greatest(${SEQUENCE_MIN_DIGITS}::int, length(n.sequence::text)), '0') END,
          coalesce(n.sequence, h.sequence), ${columns(NEW_ORDER_COLUMNS, 'h')}, s.at, s.at, s.at
        FROM input i
          CROSS JOIN LATERAL jsonb_populate_record(NULL::sales_orders, i.doc) h
          LEFT JOIN counter c ON c.location_id = h.location_id AND c.financial_year_id = h.financial_year_id
          CROSS JOIN LATERAL (SELECT c.last_sequence - (i.doc ->> 'back')::bigint AS sequence) n
          CROSS JOIN stamp s
        ORDER BY i.ord
        RETURNING *),
      ${orderEventCtes(event, Prisma.sql`(SELECT * FROM inserted ORDER BY id)`, NEW_ORDER_CONTENTS, {
        details: Prisma.sql`(SELECT l.details FROM lists l WHERE l.id = o.id)`,
        otherCharges: Prisma.sql`(SELECT l.other_charges FROM lists l WHERE l.id = o.id)`,
      })},
      history AS (
        INSERT INTO sales_order_history (sales_order_id, version, action, at, by, changes)
        SELECT o.id, o.version, i.doc ->> 'action', o.updated_at, i.doc ->> 'actor',
          (i.doc -> 'changes') || jsonb_build_object('fields',
            jsonb_build_array(jsonb_build_object('field', 'sales_order_no', 'from', NULL, 'to', o.sales_order_no))
              || (i.doc -> 'changes' -> 'fields'))
        FROM inserted o JOIN input i ON i.id = o.id ORDER BY i.ord)
      SELECT o.id, o.sales_order_no, c.last_sequence::text AS counter
      FROM input i JOIN inserted o ON o.id = i.id
        LEFT JOIN counter c ON c.location_id = o.location_id AND c.financial_year_id = o.financial_year_id
      ORDER BY i.ord`,
    );
    return rows.map((row, index) => ({
      id: row.id,
      salesOrderNo: row.sales_order_no,
      counter:
        orders[index]!.numbering!.kind === 'free-form'
          ? null
          : counters
            ? counters[index]!
            : row.counter === null
              ? null
              : BigInt(row.counter),
    }));
  },

  /**
   * Which of `numbers` an order already holds, live or deleted, case and zero padding ignored
   * (the unique index's key, sales_order_number_key): one statement for a list, by that index.
   * Across locations, as the unique index is: the numbers are the caller's own series' (each
   * item's location is checked against its scope first), and a number is taken whoever holds it.
   */
  takenNumbers: async (db: Db, numbers: readonly string[]): Promise<Set<string>> => {
    if (numbers.length === 0) return new Set();
    const rows = await db.$queryRaw<{ number: string }[]>`
      SELECT n.number FROM unnest(${[...numbers]}::text[]) AS n(number)
      WHERE EXISTS (
        SELECT 1 FROM sales_orders o WHERE ${ACROSS_LOCATIONS}
          AND sales_order_number_key(o.sales_order_no) = sales_order_number_key(n.number))`;
    return new Set(rows.map((row) => row.number));
  },

  /**
   * Takes the row lock of a live order for the rest of the transaction and reads its header:
   * null when it does not exist or is deleted. Its own statement, before anything is read of
   * the order's lines: a statement that waited for the lock would read them as they were
   * before the wait.
   */
  lockLive: async (db: SqlDb, id: number, scope: Scope): Promise<LockedOrder | null> => {
    const [row] = await db.$queryRaw<{ header: OrderHeaderValues; locked: Omit<LockedOrder, HeaderField> }[]>`
      SELECT (SELECT to_jsonb(h) FROM (SELECT ${columns(HEADER_FIELDS, 'o')}) h) AS header,
        json_build_object('sales_order_no', o.sales_order_no, 'subtotal', o.subtotal::text,
          'other_charges_total', o.other_charges_total::text, 'grand_total', o.grand_total::text,
          'version', o.version, 'status', o.status) AS locked
      FROM sales_orders o WHERE o.id = ${id}::int AND o.deleted_at IS NULL AND ${withinLocations(scope, 'o.location_id')}
      FOR UPDATE`;
    return row ? { ...row.header, ...row.locked } : null;
  },

  /** The lines and charges of an order, decimals as text. */
  contentsOf: async (db: Db, id: number): Promise<StoredContents> => {
    const [row] = await db.$queryRaw<StoredContents[]>(contentsQuery(id));
    return row!;
  },

  /**
   * The contents of an order with the references a confirm checks (orderReferenceStore.find's,
   * for the products of its stored lines): one round trip instead of two. After `lockLive`, so
   * that the lines read are those the lock holds.
   */
  contentsWithReferences: async (
    db: Db,
    id: number,
    lookup: Omit<ReferenceLookup, 'productIds'>,
  ): Promise<{ contents: StoredContents; references: FoundReferences }> => {
    const productIds = Prisma.sql`ARRAY(SELECT DISTINCT product_id FROM sales_order_details WHERE sales_order_id = ${id}::int)`;
    const [row] = await db.$queryRaw<(StoredContents & { refs: FoundReferences })[]>`
      SELECT c.lines, c.charges, (SELECT to_json(r) FROM (${referencesQuery(lookup, productIds)}) r) AS refs
      FROM (${contentsQuery(id)}) c`;
    const { refs, ...contents } = row!;
    return { contents, references: refs };
  },

  /**
   * Writes an update prepared for an order locked by `lockLive`: the whole header and totals
   * with its new version and stamp, removes the lines and charges it replaces, and records the
   * history entry (one statement); then inserts the replacements (a second one, only when
   * something is replaced: the unique line numbers of the removed and the new rows must not
   * meet in one statement). Returns the order's new version.
   */
  writeUpdate: async (db: Db, id: number, update: PreparedOrder): Promise<number> => {
    const { replaces, history } = update;
    const assignments = Prisma.raw(UPDATE_COLUMNS.map((column) => `${column} = h.${column}`).join(', '));
    const [row] = await db.$queryRaw<{ version: number }[]>`
      WITH header AS (
        UPDATE sales_orders o SET ${assignments},
          version = o.version + 1, updated_at = stamp.at, updated_by = ${history.actor}::text
        FROM ${STAMP}, jsonb_populate_record(NULL::sales_orders, ${JSON.stringify({ ...update.header, ...update.totals })}::jsonb) h
        WHERE o.id = ${id}::int AND ${LOCKED_IN_SCOPE}
        RETURNING o.id, o.version, o.updated_at),
      old_lines AS (
        DELETE FROM sales_order_details WHERE sales_order_id = ${id}::int AND ${replaces.lines}::boolean),
      old_charges AS (
        DELETE FROM sales_order_other_charges WHERE sales_order_id = ${id}::int AND ${replaces.charges}::boolean),
      history AS (${historyInsert(Prisma.sql`header`, history, Prisma.sql`${historyJson(history.changes)}::jsonb`)})
      SELECT version FROM header`;
    if (replaces.lines || replaces.charges) {
      await db.$executeRaw`
        WITH ${contentsInserts(
          // The order as the statement before left it (its date may have changed); the same
          // rule as the line triggers' for the quota flag.
          Prisma.sql`(SELECT 1 AS ord, o.id, o.sales_order_date AS order_date,
            o.deleted_at IS NULL AND o.status IN ('confirmed', 'closed') AS consumes_quota
            FROM sales_orders o WHERE o.id = ${id}::int AND ${LOCKED_IN_SCOPE}) i`,
          [replaces.lines ? update.lines : []],
          [replaces.charges ? update.charges : []],
        )}
        SELECT 1`;
    }
    return row!.version;
  },

  /**
   * Moves an order locked by `lockLive` to another status, with its new version and stamp,
   * records the transition's history entry and event, and answers with the order as it now
   * reads (the event's read shape, which GET renders with the same fragment): one statement,
   * and no read after it. `cancellationReason` is set on a cancel and kept otherwise.
   */
  writeTransition: async (
    db: Db,
    id: number,
    to: SalesOrderStatus,
    history: HistoryEntryToWrite,
  ): Promise<RenderedOrder> => {
    const [row] = await db.$queryRaw<{ version: number; json: string }[]>`
      WITH moved AS (
        UPDATE sales_orders so SET status = ${to}, status_changed_at = stamp.at,
          cancellation_reason = coalesce(${history.reason ?? null}::text, so.cancellation_reason),
          delivery_status = ${DELIVERY_STATUS_OF_ORDER},
          version = so.version + 1, updated_at = stamp.at, updated_by = ${history.actor}::text
        FROM ${STAMP}
        WHERE so.id = ${id}::int AND ${LOCKED_IN_SCOPE}
        RETURNING so.*),
      changed AS MATERIALIZED ${changedOrders(Prisma.sql`moved`)},
      ${eventInsertCtes(TRANSITION_EVENTS[to], Prisma.sql`changed`)},
      history AS (${historyInsert(Prisma.sql`moved`, history, Prisma.sql`${historyJson(history.changes)}::jsonb`)})
      SELECT version, data::text AS json FROM changed`;
    return { version: row!.version, json: new JsonText<SalesOrder>(row!.json) };
  },

  /**
   * A close's short-closing, on an order locked by `lockLive`: each line's pending quantity
   * (ordered less delivered net of returns less short-closed) becomes short-closed, so a closed
   * order holds only its net delivered quantity of the licence (licence_held_quantity). Before the
   * transition's write, which decides the delivery status from the lines this leaves.
   */
  shortClose: async (db: Db, id: number): Promise<void> => {
    await db.$executeRaw`
      UPDATE sales_order_details d
      SET short_closed_quantity = d.short_closed_quantity
        + (d.quantity - (d.delivered_quantity - d.returned_quantity) - d.short_closed_quantity)
      WHERE d.sales_order_id = ${id}::int
        AND d.quantity - (d.delivered_quantity - d.returned_quantity) - d.short_closed_quantity > 0`;
  },

  /** Whether any line of an order holds a quantity delivered net of returns (a cancel is then refused). */
  hasNetDeliveries: async (db: Db, id: number): Promise<boolean> => {
    const [row] = await db.$queryRaw<{ found: boolean }[]>`
      SELECT EXISTS (SELECT 1 FROM sales_order_details d
        WHERE d.sales_order_id = ${id}::int AND d.delivered_quantity - d.returned_quantity > 0) AS found`;
    return row!.found;
  },

  /**
   * Soft-deletes an order locked by `lockLive` and records the history entry: one statement.
   * A delete changes nothing a history entry compares: no field, line or charge changes, the
   * totals before and after are the order's.
   */
  softDelete: async (db: Db, id: number, actor: string | null): Promise<void> => {
    await db.$executeRaw`
      WITH deleted AS (
        UPDATE sales_orders SET deleted_at = stamp.at, deleted_by = ${actor}::text, updated_at = stamp.at,
          updated_by = ${actor}::text, version = version + 1
        FROM ${STAMP}
        WHERE id = ${id}::int AND ${LOCKED_IN_SCOPE}
        RETURNING sales_orders.*,
          jsonb_build_object('subtotal', subtotal, 'other_charges_total', other_charges_total,
            'grand_total', grand_total) AS totals),
      -- The deleted order's last shape: its lines and charges, which the delete leaves as they are.
      ${orderEventCtes('sales_order.deleted', Prisma.sql`deleted`)}
      INSERT INTO sales_order_history (sales_order_id, version, action, at, by, changes)
      SELECT id, version, 'delete', updated_at, ${actor}::text, jsonb_build_object(
          'fields', '[]'::jsonb,
          'lines', '{"added": [], "removed": [], "changed": []}'::jsonb,
          'other_charges', '{"added": [], "removed": [], "changed": []}'::jsonb,
          'totals_before', totals, 'totals_after', totals)
      FROM deleted`;
  },

  /**
   * Records on the history entry of the order's change to `version` the licence warnings the
   * caller acknowledged: for a confirm, whose warnings are worked out after its write (under the
   * quota locks the licence statement takes then). One statement, by the entry's unique key.
   */
  recordAcknowledged: async (db: Db, id: number, version: number, warnings: LicenceWarning[]): Promise<void> => {
    await db.$executeRaw`
      UPDATE sales_order_history SET acknowledged_warnings = ${JSON.stringify(warnings)}::jsonb
      WHERE sales_order_id = ${id}::int AND version = ${version}::int`;
  },

  /** The id of the draft an order was amended into, if it was. */
  amendmentOf: async (db: Db, id: number): Promise<number | null> => {
    const [row] = await db.$queryRaw<{ id: number }[]>`
      SELECT id FROM sales_orders WHERE amended_from_id = ${id}::int AND ${LOCKED_IN_SCOPE}`;
    return row?.id ?? null;
  },
};
