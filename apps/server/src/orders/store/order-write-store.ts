import type { EventType, HistoryChanges, SalesOrderStatus } from '@sales-order/contract';

import { sqlStateOf } from '../../db/database-errors.js';
import type { Db } from '../../db/transactions.js';
import { Prisma } from '../../generated/prisma/client.js';
import { SEQUENCE_MIN_DIGITS } from '../numbering.js';
import type { HistoryEntryToWrite, OrderHeader } from '../order-history.js';
import { orderEventCtes } from './order-event-store.js';

/**
 * Every statement that writes an order, its lines, charges and history. All raw SQL: Prisma
 * compiles a query plan for each model query shape it has not seen (and for every createMany),
 * on the event loop; a raw statement is sent as it is. Each write is a fixed number of
 * statements whatever the line count: lines and charges go in as arrays through unnest().
 * Decimals travel as text and are cast to numeric in SQL, never through a JS number.
 */

/** A priced line as its columns store it: decimals as fixed-point text at each column's scale. */
export interface LineToStore {
  productId: number;
  packsizeId: number | null;
  /** numeric(18,3) */
  quantity: string;
  /** numeric(18,4) */
  rate: string;
  /** numeric(18,2) */
  amount: string;
  remarks: string | null;
}

export interface ChargeToStore {
  description: string;
  /** Fixed-point text, 2 places. */
  amount: string;
}

export interface OrderToStore {
  /** A supplied number as stored; null: the server numbers the order from its series' counter. */
  salesOrderNo: string | null;
  /** The sequence of a supplied series number; null for a free-form or a server number. */
  sequence: bigint | null;
  locationId: number;
  financialYearId: number;
  customerId: number;
  /** YYYY-MM-DD */
  salesOrderDate: string;
  remarks: string | null;
  subtotal: string;
  otherChargesTotal: string;
  grandTotal: string;
  createdBy: string | null;
  fieldOfficerId: number | null;
  portId: number | null;
  customerReference: string | null;
  /** YYYY-MM-DD */
  deliveryDate: string | null;
  /** The cancelled order an amendment starts from; null for a plain create. */
  amendedFromId: number | null;
}

/** The header fields an update writes (all of them, changed or not). */
export type HeaderToStore = Pick<
  OrderToStore,
  | 'customerId'
  | 'salesOrderDate'
  | 'remarks'
  | 'subtotal'
  | 'otherChargesTotal'
  | 'grandTotal'
  | 'fieldOfficerId'
  | 'portId'
  | 'customerReference'
  | 'deliveryDate'
>;

/** How a create's number is settled. */
export type Numbering =
  /** The next sequence of the series, as `{prefix}{sequence zero-padded to SEQUENCE_MIN_DIGITS}`. */
  | { kind: 'server'; locationId: number; financialYearId: number; prefix: string }
  /** A supplied series number: moves the counter up to it, unless it is more than `maxAhead` past. */
  | { kind: 'supplied-series'; locationId: number; financialYearId: number; sequence: bigint; maxAhead: bigint }
  /** A free-form number: no counter. */
  | { kind: 'free-form' };

/** An Idempotency-Key claimed in the same transaction, whose row the create's result goes into. */
export interface ClaimedKey {
  subject: string;
  key: string;
}

export interface CreatedOrder {
  id: number;
  salesOrderNo: string;
  /** Where the series' counter stands after the statement; null for a free-form number. */
  counter: bigint | null;
}

/** A live order's header as `lockLive` reads it under its row lock. Decimals and dates as text. */
export interface LockedOrder extends OrderHeader {
  subtotal: string;
  other_charges_total: string;
  grand_total: string;
  version: number;
  status: SalesOrderStatus;
}

export interface StoredContents {
  lines: {
    line_no: number;
    product_id: number;
    packsize_id: number | null;
    quantity: string;
    rate: string;
    amount: string;
    remarks: string | null;
  }[];
  charges: { line_no: number; description: string; amount: string }[];
}

const UNIQUE_VIOLATION = '23505';

/**
 * A unique-constraint violation: Prisma's own code, or SQLSTATE 23505 read from the driver
 * adapter's error field (a raw statement reports it there), never from serialised text.
 */
export const isUniqueViolation = (error: unknown): boolean =>
  (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') ||
  sqlStateOf(error) === UNIQUE_VIOLATION;

/**
 * Lines and charges of the order `order` names (an SQL from-item aliased `o`, its column `id`),
 * one INSERT per table as CTEs.
 */
const contentsInserts = (order: Prisma.Sql, lines: LineToStore[], charges: ChargeToStore[]) => Prisma.sql`
  lines AS (
    INSERT INTO sales_order_details (sales_order_id, line_no, product_id, packsize_id, quantity, rate, amount, remarks)
    SELECT o.id, l.line_no, l.product_id, l.packsize_id, l.quantity, l.rate, l.amount, l.remarks
    FROM ${order}, unnest(
      ${lines.map((line) => line.productId)}::int[],
      ${lines.map((line) => line.packsizeId)}::int[],
      ${lines.map((line) => line.quantity)}::text[]::numeric[],
      ${lines.map((line) => line.rate)}::text[]::numeric[],
      ${lines.map((line) => line.amount)}::text[]::numeric[],
      ${lines.map((line) => line.remarks)}::text[]
    ) WITH ORDINALITY AS l(product_id, packsize_id, quantity, rate, amount, remarks, line_no)
    RETURNING *
  ),
  charges AS (
    INSERT INTO sales_order_other_charges (sales_order_id, line_no, description, amount)
    SELECT o.id, c.line_no, c.description, c.amount
    FROM ${order}, unnest(
      ${charges.map((charge) => charge.description)}::text[],
      ${charges.map((charge) => charge.amount)}::text[]::numeric[]
    ) WITH ORDINALITY AS c(description, amount, line_no)
    RETURNING *
  )`;

/** Locks (creating it at 0) and moves a series' counter: the statement's first CTE, `counter`. */
const counterMove = (numbering: Numbering): Prisma.Sql => {
  switch (numbering.kind) {
    case 'server':
      return Prisma.sql`counter AS (
        INSERT INTO sales_order_counters AS c (location_id, financial_year_id, last_sequence)
        VALUES (${numbering.locationId}::int, ${numbering.financialYearId}::int, 1)
        ON CONFLICT (location_id, financial_year_id) DO UPDATE SET last_sequence = c.last_sequence + 1
        RETURNING last_sequence),`;
    case 'supplied-series': {
      const { sequence, maxAhead } = numbering;
      // Too far ahead: the counter stays where it is, and the caller sees that from it.
      return Prisma.sql`counter AS (
        INSERT INTO sales_order_counters AS c (location_id, financial_year_id, last_sequence)
        VALUES (${numbering.locationId}::int, ${numbering.financialYearId}::int,
          CASE WHEN ${sequence}::bigint <= ${maxAhead}::bigint THEN ${sequence}::bigint ELSE 0 END)
        ON CONFLICT (location_id, financial_year_id) DO UPDATE SET last_sequence = CASE
          WHEN ${sequence}::bigint > c.last_sequence + ${maxAhead}::bigint THEN c.last_sequence
          ELSE greatest(c.last_sequence, ${sequence}::bigint) END
        RETURNING last_sequence),`;
    }
    case 'free-form':
      return Prisma.sql`counter AS (SELECT NULL::bigint AS last_sequence),`;
  }
};

/** The number and sequence the order is inserted with: the server's come from the counter. */
const numberAndSequence = (order: OrderToStore, numbering: Numbering): Prisma.Sql =>
  numbering.kind === 'server'
    ? Prisma.sql`${numbering.prefix}
        || lpad(counter.last_sequence::text, greatest(${SEQUENCE_MIN_DIGITS}::int, length(counter.last_sequence::text)), '0'),
        counter.last_sequence`
    : Prisma.sql`${order.salesOrderNo}::text, ${order.sequence}::bigint`;

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

export const orderWriteStore = {
  /**
   * Creates an order in one statement: moves its series' counter (locking that row to the
   * statement's commit), inserts the order numbered from it with its lines and charges, and
   * writes what follows from the row it made: the history entry (its `sales_order_no` field
   * change, which leads `history.changes.fields`) and, for a claimed Idempotency-Key, the
   * result a retry gets (`sales_order_id`, `order_number`, `total_amount`). Run alone it is its
   * own transaction: no BEGIN or COMMIT round trip, and the counter row is locked for this one
   * statement only; a failed statement gives its number back.
   */
  insertOrder: async (
    db: Db,
    order: OrderToStore,
    lines: LineToStore[],
    charges: ChargeToStore[],
    numbering: Numbering,
    /** The entry of the create, but for the number, which the statement settles. */
    history: HistoryEntryToWrite,
    claimedKey?: ClaimedKey,
  ): Promise<CreatedOrder> => {
    const storeResult = claimedKey
      ? Prisma.sql`, stored_result AS (
          UPDATE idempotency_keys k
          SET result = jsonb_build_object('sales_order_id', i.id, 'order_number', i.sales_order_no,
            'total_amount', ${order.grandTotal}::numeric)
          FROM inserted i WHERE k.subject = ${claimedKey.subject} AND k.key = ${claimedKey.key})`
      : Prisma.empty;
    const [row] = await db.$queryRaw<{ id: number; sales_order_no: string; counter: bigint | null }[]>`
      WITH ${counterMove(numbering)}
      inserted AS (
        INSERT INTO sales_orders (sales_order_no, sequence, location_id, financial_year_id, customer_id,
          sales_order_date, remarks, subtotal, other_charges_total, grand_total, created_by, updated_by,
          field_officer_id, port_id, customer_reference, delivery_date, amended_from_id,
          created_at, updated_at, status_changed_at)
        SELECT ${numberAndSequence(order, numbering)},
          ${order.locationId}::int, ${order.financialYearId}::int, ${order.customerId}::int,
          ${order.salesOrderDate}::date, ${order.remarks}::text, ${order.subtotal}::numeric,
          ${order.otherChargesTotal}::numeric, ${order.grandTotal}::numeric, ${order.createdBy}::text,
          ${order.createdBy}::text, ${order.fieldOfficerId}::int, ${order.portId}::int,
          ${order.customerReference}::text, ${order.deliveryDate}::date, ${order.amendedFromId}::int,
          counter.at, counter.at, counter.at
        -- Stamped once the counter is locked (a volatile call keeps the subquery apart).
        FROM (SELECT last_sequence, clock_timestamp() AS at FROM counter) counter
        RETURNING *),
      ${contentsInserts(Prisma.sql`inserted o`, lines, charges)},
      ${orderEventCtes(
        order.amendedFromId === null ? 'sales_order.created' : 'sales_order.amended',
        Prisma.sql`inserted`,
        {
          lines: Prisma.sql`lines`,
          charges: Prisma.sql`charges`,
        },
      )},
      entry AS (SELECT ${historyJson(history.changes)}::jsonb AS changes),
      history AS (${historyInsert(
        Prisma.sql`inserted`,
        history,
        Prisma.sql`(SELECT e.changes || jsonb_build_object('fields',
            jsonb_build_array(jsonb_build_object('field', 'sales_order_no', 'from', NULL, 'to', c.sales_order_no))
              || (e.changes -> 'fields')) FROM entry e)`,
      )})
      ${storeResult}
      SELECT i.id, i.sales_order_no, (SELECT last_sequence FROM counter) AS counter FROM inserted i`;
    return {
      id: row!.id,
      salesOrderNo: row!.sales_order_no,
      counter: row!.counter === null ? null : BigInt(row!.counter),
    };
  },

  /**
   * Takes the row lock of a live order for the rest of the transaction and reads its header:
   * null when it does not exist or is deleted. Its own statement, before anything is read of
   * the order's lines: a statement that waited for the lock would read them as they were
   * before the wait.
   */
  lockLive: async (db: Db, id: number): Promise<LockedOrder | null> => {
    const [row] = await db.$queryRaw<LockedOrder[]>`
      SELECT sales_order_no, customer_id, to_char(sales_order_date, 'YYYY-MM-DD') AS sales_order_date, location_id,
        financial_year_id, remarks, subtotal::text AS subtotal, other_charges_total::text AS other_charges_total,
        grand_total::text AS grand_total, version, status, field_officer_id, port_id, customer_reference,
        to_char(delivery_date, 'YYYY-MM-DD') AS delivery_date
      FROM sales_orders WHERE id = ${id}::int AND deleted_at IS NULL
      FOR UPDATE`;
    return row ?? null;
  },

  /** The lines and charges of an order, decimals as text. */
  contentsOf: async (db: Db, id: number): Promise<StoredContents> => {
    const [row] = await db.$queryRaw<StoredContents[]>`
      SELECT
        coalesce((SELECT json_agg(json_build_object('line_no', line_no, 'product_id', product_id,
            'packsize_id', packsize_id, 'quantity', quantity::text, 'rate', rate::text, 'amount', amount::text,
            'remarks', remarks) ORDER BY line_no)
          FROM sales_order_details WHERE sales_order_id = ${id}::int), '[]') AS lines,
        coalesce((SELECT json_agg(json_build_object('line_no', line_no, 'description', description,
            'amount', amount::text) ORDER BY line_no)
          FROM sales_order_other_charges WHERE sales_order_id = ${id}::int), '[]') AS charges`;
    return row!;
  },

  /**
   * Writes an update of an order locked by `lockLive`: the header with its new version and
   * stamp, removes the lines and charges it replaces, and records the history entry (one
   * statement); then inserts the replacements (a second one, only when something is replaced:
   * the unique line numbers of the removed and the new rows must not meet in one statement).
   * Returns the order's new version.
   */
  writeUpdate: async (
    db: Db,
    id: number,
    header: HeaderToStore,
    replaced: { lines?: LineToStore[]; charges?: ChargeToStore[] },
    history: HistoryEntryToWrite,
  ): Promise<number> => {
    const [row] = await db.$queryRaw<{ version: number }[]>`
      WITH header AS (
        UPDATE sales_orders SET customer_id = ${header.customerId}::int, sales_order_date = ${header.salesOrderDate}::date,
          remarks = ${header.remarks}::text, subtotal = ${header.subtotal}::numeric,
          other_charges_total = ${header.otherChargesTotal}::numeric, grand_total = ${header.grandTotal}::numeric,
          field_officer_id = ${header.fieldOfficerId}::int, port_id = ${header.portId}::int,
          customer_reference = ${header.customerReference}::text, delivery_date = ${header.deliveryDate}::date,
          version = version + 1, updated_at = stamp.at, updated_by = ${history.actor}::text
        FROM ${STAMP}
        WHERE id = ${id}::int
        RETURNING id, version, updated_at),
      old_lines AS (
        DELETE FROM sales_order_details WHERE sales_order_id = ${id}::int AND ${replaced.lines !== undefined}::boolean),
      old_charges AS (
        DELETE FROM sales_order_other_charges WHERE sales_order_id = ${id}::int AND ${replaced.charges !== undefined}::boolean),
      history AS (${historyInsert(Prisma.sql`header`, history, Prisma.sql`${historyJson(history.changes)}::jsonb`)})
      SELECT version FROM header`;
    if (replaced.lines !== undefined || replaced.charges !== undefined) {
      await db.$executeRaw`
        WITH ${contentsInserts(Prisma.sql`(SELECT ${id}::int AS id) o`, replaced.lines ?? [], replaced.charges ?? [])}
        SELECT 1`;
    }
    return row!.version;
  },

  /**
   * Moves an order locked by `lockLive` to another status, with its new version and stamp,
   * and records the transition's history entry: one statement. `cancellationReason` is set
   * on a cancel and kept otherwise.
   */
  writeTransition: async (db: Db, id: number, to: SalesOrderStatus, history: HistoryEntryToWrite): Promise<void> => {
    await db.$executeRaw`
      WITH moved AS (
        UPDATE sales_orders SET status = ${to}, status_changed_at = stamp.at,
          cancellation_reason = coalesce(${history.reason ?? null}::text, cancellation_reason),
          version = version + 1, updated_at = stamp.at, updated_by = ${history.actor}::text
        FROM ${STAMP}
        WHERE id = ${id}::int
        RETURNING sales_orders.*),
      ${orderEventCtes(TRANSITION_EVENTS[to], Prisma.sql`moved`)}
      ${historyInsert(Prisma.sql`moved`, history, Prisma.sql`${historyJson(history.changes)}::jsonb`)}`;
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
        WHERE id = ${id}::int
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
   * Takes the licence-quota lock of each product a quantity limit applies to (one that needs a
   * licence and has an active licence with a licensed quantity) for the rest of the transaction
   * (a transaction-scoped advisory lock), in product order so that two confirms never deadlock:
   * a confirm reads what other orders hold of a product only once no other confirm of it can
   * still commit, so two confirms racing for the last units cannot both take them. A product
   * without a limit has no quota to race for: confirms sharing it do not wait for each other
   * (before issue 29 they did, and timed out in a burst).
   */
  lockQuota: async (db: Db, productIds: readonly number[]): Promise<void> => {
    if (productIds.length === 0) return;
    // OFFSET 0 keeps the sorted subquery apart, so the locks are taken in its order.
    await db.$executeRaw`
      SELECT pg_advisory_xact_lock(${QUOTA_LOCK_SPACE}::int, p.id)
      FROM (
        SELECT DISTINCT u.id FROM unnest(${[...productIds]}::int[]) AS u(id)
        WHERE EXISTS (
          SELECT 1 FROM products pr JOIN product_licences l ON l.product_id = pr.id
          WHERE pr.id = u.id AND pr.requires_licence AND l.active AND l.licensed_quantity IS NOT NULL)
        ORDER BY u.id OFFSET 0) p`;
  },

  /** The id of the draft an order was amended into, if it was. */
  amendmentOf: async (db: Db, id: number): Promise<number | null> => {
    const [row] = await db.$queryRaw<{ id: number }[]>`
      SELECT id FROM sales_orders WHERE amended_from_id = ${id}::int`;
    return row?.id ?? null;
  },
};

/** The first key of the quota's advisory locks: a space of its own ("SOQL" read as an int4). */
const QUOTA_LOCK_SPACE = 0x534f514c;
