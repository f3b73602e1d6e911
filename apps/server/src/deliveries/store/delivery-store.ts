import type { Delivery, DeliveryEventType, HistoryChanges, OrderDeliveryStatus } from '@sales-order/contract';

import type { Scope } from '../../auth/scope.js';
import type { SqlDb } from '../../db/sql-db.js';
import { type Reader, readRows } from '../../db/transactions.js';
import { LOCKED_IN_SCOPE, withinLocations } from '../../db/within-locations.js';
import { subjectEventInsertCtes } from '../../events/store/outbox-store.js';
import { Prisma } from '../../generated/prisma/client.js';
import { escapeLike } from '../../orders/store/order-filters.js';
import { DELIVERY_STATUS_OF_ORDER } from '../../orders/store/order-read-shape.js';
import { deliveryReadShape } from './delivery-read-shape.js';

/**
 * Every statement about deliveries, their lines and returns, and what they change of the order's
 * lines (`delivered_quantity`, `returned_quantity`, `short_closed_quantity`) and of the order
 * (`delivery_status`, a new version, a history entry, the event). Decimals travel as text, cast
 * to numeric in SQL. A delivery is located by its order's location (`location_id`, copied from
 * the order): reads apply the caller's scope; the writes run on an order this transaction has
 * locked in scope (orders/order-preconditions.ts lockAsExpected).
 */

/** An order line as a delivery reads it under the order's lock; quantities as NUMERIC text. */
export interface DeliverableLine {
  id: number;
  line_no: number;
  product_id: number;
  quantity: string;
  delivered_quantity: string;
  returned_quantity: string;
  short_closed_quantity: string;
}

/** A delivery as a cancel or return reads it under its order's lock. */
export interface LockedDelivery {
  id: number;
  delivery_no: string;
  sales_order_id: number;
  status: 'recorded' | 'cancelled';
  delivery_date: string;
  lines: { id: number; sales_order_detail_id: number; quantity: string; returned_quantity: string }[];
}

/** Where a page of GET /deliveries ends: its last delivery's date and id. */
export interface DeliveryCursor {
  k: string;
  i: number;
}

/** The number series of a delivery: its order's location and the financial year of its date. */
export interface DeliverySeries {
  location_code: string;
  financial_year_id: number;
  year: number;
}

/** What a delivery change leaves of the order: its new version and delivery status, and the delivery as read. */
export interface DeliveryChangeResult {
  version: number;
  delivery_status: OrderDeliveryStatus;
  delivery: Delivery;
}

export interface DeliveryListFilter {
  scope: Scope;
  locationId?: number;
  salesOrderId?: number;
  customerId?: number;
  status?: 'recorded' | 'cancelled';
  dateFrom?: string;
  dateTo?: string;
  q?: string;
  updatedSince?: Date;
}

const STAMP = Prisma.sql`(SELECT clock_timestamp() AS at) stamp`;

const listConditions = (filter: DeliveryListFilter, cursor: DeliveryCursor | undefined): Prisma.Sql[] => {
  const where: Prisma.Sql[] = [];
  if (filter.locationId !== undefined) where.push(Prisma.sql`dv.location_id = ${filter.locationId}::int`);
  if (filter.salesOrderId !== undefined) where.push(Prisma.sql`dv.sales_order_id = ${filter.salesOrderId}::int`);
  if (filter.customerId !== undefined) {
    where.push(Prisma.sql`dv.sales_order_id IN (
      /* location scope: only narrows the deliveries, which the page bounds by the caller's scope */
      SELECT o.id FROM sales_orders o WHERE o.customer_id = ${filter.customerId}::int)`);
  }
  if (filter.status !== undefined) where.push(Prisma.sql`dv.status = ${filter.status}`);
  if (filter.dateFrom !== undefined) where.push(Prisma.sql`dv.delivery_date >= ${filter.dateFrom}::date`);
  if (filter.dateTo !== undefined) where.push(Prisma.sql`dv.delivery_date <= ${filter.dateTo}::date`);
  if (filter.q !== undefined) {
    const pattern = `%${escapeLike(filter.q)}%`;
    where.push(Prisma.sql`(dv.delivery_no ILIKE ${pattern} ESCAPE '\\' OR dv.reference ILIKE ${pattern} ESCAPE '\\')`);
  }
  if (filter.updatedSince !== undefined) where.push(Prisma.sql`dv.updated_at >= ${filter.updatedSince}`);
  if (cursor) where.push(Prisma.sql`(dv.delivery_date, dv.id) < (${cursor.k}::date, ${cursor.i}::int)`);
  return where;
};

/** An order's lines, each locked in id order for the rest of the transaction; quantities as text. */
const lineLocks = (orderId: number) => Prisma.sql`
  SELECT d.id, d.line_no, d.product_id, d.quantity::text AS quantity,
    d.delivered_quantity::text AS delivered_quantity, d.returned_quantity::text AS returned_quantity,
    d.short_closed_quantity::text AS short_closed_quantity
  FROM sales_order_details d WHERE d.sales_order_id = ${orderId}::int
  ORDER BY d.id FOR UPDATE`;

/** The series of a delivery at `locationId` dated `date`: no row when no financial year holds the date. */
const seriesRow = (locationId: number, date: string) => Prisma.sql`
  SELECT l.code AS location_code, fy.id AS financial_year_id, extract(year FROM fy.start_date)::int AS year
  FROM locations l CROSS JOIN financial_years fy
  WHERE l.id = ${locationId}::int AND ${date}::date BETWEEN fy.start_date AND fy.end_date
  ORDER BY fy.start_date DESC LIMIT 1`;

export const deliveryStore = {
  /** The order a delivery in the caller's scope belongs to, or null. */
  orderOf: async (db: SqlDb, deliveryId: number, scope: Scope): Promise<number | null> => {
    const [row] = await db.$queryRaw<{ sales_order_id: number }[]>`
      SELECT dv.sales_order_id FROM deliveries dv
      WHERE dv.id = ${deliveryId}::int AND ${withinLocations(scope, 'dv.location_id')}`;
    return row?.sales_order_id ?? null;
  },

  /**
   * The lines of an order locked by `lockAsExpected`, each locked in id order for the rest of the
   * transaction (after the order's row, as every writer of an order locks).
   */
  lockLines: async (db: SqlDb, orderId: number): Promise<DeliverableLine[]> =>
    db.$queryRaw<DeliverableLine[]>(lineLocks(orderId)),

  /**
   * lockLines, with the series of a new delivery at `locationId` dated `date` read in the same
   * round trip (null when no financial year holds the date): what a delivery reads under its
   * order's lock before it is numbered.
   */
  lockLinesWithSeries: async (
    db: SqlDb,
    orderId: number,
    locationId: number,
    date: string,
  ): Promise<{ lines: DeliverableLine[]; series: DeliverySeries | null }> => {
    const rows = await db.$queryRaw<(DeliverableLine & { series: DeliverySeries | null })[]>`
      WITH locked AS (${lineLocks(orderId)})
      SELECT line.*, (SELECT json_build_object('location_code', s.location_code,
          'financial_year_id', s.financial_year_id, 'year', s.year) FROM (${seriesRow(locationId, date)}) s) AS series
      FROM locked line ORDER BY line.id`;
    return { lines: rows.map(({ series: _series, ...line }) => line), series: rows[0]?.series ?? null };
  },

  /** A delivery of an order this transaction locked in scope, its row locked too. */
  lockDelivery: async (db: SqlDb, deliveryId: number): Promise<LockedDelivery | null> => {
    const [row] = await db.$queryRaw<LockedDelivery[]>`
      SELECT dv.id, dv.delivery_no, dv.sales_order_id, dv.status, to_char(dv.delivery_date, 'YYYY-MM-DD') AS delivery_date,
        coalesce((SELECT json_agg(json_build_object('id', dl.id, 'sales_order_detail_id', dl.sales_order_detail_id,
            'quantity', dl.quantity::text, 'returned_quantity', dl.returned_quantity::text) ORDER BY dl.line_no)
          FROM delivery_lines dl WHERE dl.delivery_id = dv.id), '[]') AS lines
      FROM deliveries dv WHERE dv.id = ${deliveryId}::int AND ${LOCKED_IN_SCOPE}
      FOR UPDATE OF dv`;
    return row ?? null;
  },

  /**
   * Records a delivery of the locked order: the next number of its series (the counter row locked
   * to the commit, after the order's: concurrent deliveries of a series take turns, numbers never
   * repeat), the delivery and its lines, and each order line's delivered quantity. One statement.
   */
  insertDelivery: async (
    db: SqlDb,
    input: {
      orderId: number;
      locationId: number;
      series: DeliverySeries;
      prefix: string;
      date: string;
      reference: string | null;
      remarks: string | null;
      actor: string | null;
      lines: { line_no: number; sales_order_detail_id: number; quantity: string }[];
    },
  ): Promise<{ id: number; delivery_no: string }> => {
    const lines = JSON.stringify(input.lines);
    const [row] = await db.$queryRaw<{ id: number; delivery_no: string }[]>`
      WITH counter AS (
        INSERT INTO delivery_counters AS c (location_id, financial_year_id, last_sequence)
        VALUES (${input.locationId}::int, ${input.series.financial_year_id}::int, 1)
        ON CONFLICT (location_id, financial_year_id) DO UPDATE SET last_sequence = c.last_sequence + 1
        RETURNING last_sequence),
      delivery AS (
        INSERT INTO deliveries (delivery_no, sequence, sales_order_id, location_id, financial_year_id, delivery_date,
          reference, remarks, created_at, created_by, updated_at, updated_by)
        SELECT ${input.prefix} || lpad(c.last_sequence::text, greatest(5, length(c.last_sequence::text)), '0'),
          c.last_sequence, ${input.orderId}::int, ${input.locationId}::int, ${input.series.financial_year_id}::int,
          ${input.date}::date, ${input.reference}::text, ${input.remarks}::text, stamp.at, ${input.actor}::text,
          stamp.at, ${input.actor}::text
        FROM counter c CROSS JOIN ${STAMP} WHERE ${LOCKED_IN_SCOPE}
        RETURNING id, delivery_no),
      lines AS (
        INSERT INTO delivery_lines (delivery_id, line_no, sales_order_detail_id, product_id, quantity)
        SELECT dv.id, r.line_no, r.sales_order_detail_id, d.product_id, r.quantity
        FROM delivery dv
          CROSS JOIN json_to_recordset(${lines}::json) AS r(line_no int, sales_order_detail_id int, quantity numeric)
          JOIN sales_order_details d ON d.id = r.sales_order_detail_id AND d.sales_order_id = ${input.orderId}::int
        RETURNING 1),
      totals AS (
        UPDATE sales_order_details d SET delivered_quantity = d.delivered_quantity + s.quantity
        FROM (SELECT r.sales_order_detail_id, sum(r.quantity) AS quantity
              FROM json_to_recordset(${lines}::json) AS r(sales_order_detail_id int, quantity numeric)
              GROUP BY r.sales_order_detail_id) s
        WHERE d.id = s.sales_order_detail_id AND d.sales_order_id = ${input.orderId}::int
        RETURNING 1)
      SELECT dv.id, dv.delivery_no FROM delivery dv
      WHERE (SELECT count(*) FROM lines) + (SELECT count(*) FROM totals) >= 0`;
    return row!;
  },

  /** Cancels a recorded delivery of the locked order: its quantities leave the order lines' delivered quantities. */
  cancel: async (db: SqlDb, deliveryId: number, reason: string, actor: string | null): Promise<void> => {
    await db.$executeRaw`
      WITH cancelled AS (
        UPDATE deliveries dv SET status = 'cancelled', cancellation_reason = ${reason}, version = dv.version + 1,
          updated_at = stamp.at, updated_by = ${actor}::text
        FROM ${STAMP}
        WHERE dv.id = ${deliveryId}::int AND dv.status = 'recorded' AND ${LOCKED_IN_SCOPE}
        RETURNING dv.id)
      UPDATE sales_order_details d SET delivered_quantity = d.delivered_quantity - s.quantity
      FROM (SELECT dl.sales_order_detail_id, sum(dl.quantity) AS quantity
            FROM delivery_lines dl JOIN cancelled c ON c.id = dl.delivery_id
            GROUP BY dl.sales_order_detail_id) s
      WHERE d.id = s.sales_order_detail_id`;
  },

  /**
   * Records a return against a delivery of the locked order: the return and its lines, each
   * delivery line's returned quantity, each order line's; on a closed order (`shortCloses`) the
   * order line's short-closed quantity grows by as much, so nothing becomes pending again and the
   * licence gets it back. One statement.
   */
  insertReturn: async (
    db: SqlDb,
    input: {
      deliveryId: number;
      date: string;
      reason: string;
      actor: string | null;
      shortCloses: boolean;
      lines: { delivery_line_id: number; quantity: string }[];
    },
  ): Promise<void> => {
    const lines = JSON.stringify(input.lines);
    const perLine = Prisma.sql`(SELECT r.delivery_line_id, sum(r.quantity) AS quantity
      FROM json_to_recordset(${lines}::json) AS r(delivery_line_id int, quantity numeric) GROUP BY r.delivery_line_id)`;
    await db.$executeRaw`
      WITH returned AS (
        INSERT INTO delivery_returns (delivery_id, return_date, reason, created_at, created_by)
        SELECT ${input.deliveryId}::int, ${input.date}::date, ${input.reason}, stamp.at, ${input.actor}::text
        FROM ${STAMP}
        RETURNING id, created_at),
      return_lines AS (
        INSERT INTO delivery_return_lines (return_id, delivery_line_id, quantity)
        SELECT rt.id, r.delivery_line_id, r.quantity
        FROM returned rt CROSS JOIN ROWS FROM (json_to_recordset(${lines}::json)
          AS (delivery_line_id int, quantity numeric)) WITH ORDINALITY AS r(delivery_line_id, quantity, ord)
        ORDER BY r.ord
        RETURNING 1),
      delivery_lines_returned AS (
        UPDATE delivery_lines dl SET returned_quantity = dl.returned_quantity + s.quantity
        FROM ${perLine} s
        WHERE dl.id = s.delivery_line_id AND dl.delivery_id = ${input.deliveryId}::int
        RETURNING dl.sales_order_detail_id, s.quantity),
      touched AS (
        UPDATE deliveries dv SET updated_at = rt.created_at, updated_by = ${input.actor}::text, version = dv.version + 1
        FROM returned rt WHERE dv.id = ${input.deliveryId}::int AND ${LOCKED_IN_SCOPE}
        RETURNING 1)
      UPDATE sales_order_details d SET returned_quantity = d.returned_quantity + s.quantity,
        short_closed_quantity = d.short_closed_quantity + CASE WHEN ${input.shortCloses}::boolean THEN s.quantity ELSE 0 END
      FROM (SELECT sales_order_detail_id, sum(quantity) AS quantity FROM delivery_lines_returned
            GROUP BY sales_order_detail_id) s
      WHERE d.id = s.sales_order_detail_id
        AND (SELECT count(*) FROM return_lines) + (SELECT count(*) FROM touched) >= 0`;
  },

  /**
   * The order's side of a delivery change, after the change's own statement: the delivery status
   * decided again from its lines, a new version and stamp, the history entry (`changes`, with the
   * status change added when there is one) and the delivery's event with the order's new version.
   * One statement; answers with the delivery as it now reads.
   */
  writeOrderChange: async (
    db: SqlDb,
    change: {
      orderId: number;
      deliveryId: number;
      action: 'deliver' | 'cancel_delivery' | 'return';
      event: DeliveryEventType;
      actor: string | null;
      reason: string | null;
      changes: HistoryChanges;
    },
  ): Promise<DeliveryChangeResult> => {
    const [row] = await db.$queryRaw<DeliveryChangeResult[]>`
      WITH before AS MATERIALIZED (
        SELECT so.delivery_status FROM sales_orders so WHERE so.id = ${change.orderId}::int AND ${LOCKED_IN_SCOPE}),
      moved AS (
        UPDATE sales_orders so SET delivery_status = ${DELIVERY_STATUS_OF_ORDER},
          version = so.version + 1, updated_at = stamp.at, updated_by = ${change.actor}::text
        FROM ${STAMP}
        WHERE so.id = ${change.orderId}::int AND ${LOCKED_IN_SCOPE}
        RETURNING so.id, so.version, so.updated_at, so.delivery_status),
      shaped AS MATERIALIZED (
        SELECT m.id, m.version, m.updated_at, m.delivery_status, ${deliveryReadShape} AS delivery
        FROM moved m JOIN deliveries dv ON dv.id = ${change.deliveryId}::int),
      history AS (
        INSERT INTO sales_order_history (sales_order_id, version, action, at, by, changes, reason)
        SELECT s.id, s.version, ${change.action}, s.updated_at, ${change.actor}::text,
          jsonb_set(${JSON.stringify(change.changes)}::jsonb, '{fields}',
            (${JSON.stringify(change.changes.fields)}::jsonb) || CASE WHEN b.delivery_status = s.delivery_status
              THEN '[]'::jsonb
              ELSE jsonb_build_array(jsonb_build_object('field', 'delivery_status', 'from', b.delivery_status,
                'to', s.delivery_status)) END),
          ${change.reason}::text
        FROM shaped s CROSS JOIN before b),
      ${subjectEventInsertCtes(
        change.event,
        Prisma.sql`(SELECT ${change.deliveryId}::int AS subject_id, s.version, s.updated_at AS occurred_at,
          json_build_object('delivery', s.delivery, 'sales_order_id', s.id, 'delivery_status', s.delivery_status) AS data
          FROM shaped s)`,
      )}
      SELECT s.version, s.delivery_status, s.delivery FROM shaped s`;
    return row!;
  },

  /** A delivery in the caller's scope as read, or null. */
  find: async (db: Reader, deliveryId: number, scope: Scope): Promise<Delivery | null> => {
    const [row] = await readRows<{ delivery: Delivery }>(
      db,
      Prisma.sql`SELECT ${deliveryReadShape} AS delivery FROM deliveries dv
        WHERE dv.id = ${deliveryId}::int AND ${withinLocations(scope, 'dv.location_id')}`,
    );
    return row?.delivery ?? null;
  },

  /** Every delivery of a live order in the caller's scope, oldest first; null when there is no such order. */
  ofOrder: async (db: Reader, orderId: number, scope: Scope): Promise<Delivery[] | null> => {
    const [row] = await readRows<{ items: Delivery[] }>(
      db,
      Prisma.sql`SELECT coalesce((SELECT json_agg(${deliveryReadShape} ORDER BY dv.id)
          FROM deliveries dv WHERE dv.sales_order_id = o.id), '[]') AS items
        FROM sales_orders o
        WHERE o.id = ${orderId}::int AND o.deleted_at IS NULL AND ${withinLocations(scope, 'o.location_id')}`,
    );
    return row?.items ?? null;
  },

  /** A keyset page of deliveries, newest delivery date first, and whether more follow. */
  page: async (
    db: Reader,
    filter: DeliveryListFilter,
    cursor: DeliveryCursor | undefined,
    limit: number,
  ): Promise<{ items: Delivery[]; more: boolean; last: DeliveryCursor | null }> => {
    const rows = await readRows<{ delivery: Delivery; k: string; i: number }>(
      db,
      Prisma.sql`SELECT ${deliveryReadShape} AS delivery, to_char(dv.delivery_date, 'YYYY-MM-DD') AS k, dv.id AS i
        FROM deliveries dv
        WHERE ${Prisma.join([withinLocations(filter.scope, 'dv.location_id'), ...listConditions(filter, cursor)], ' AND ')}
        ORDER BY dv.delivery_date DESC, dv.id DESC LIMIT ${limit + 1}::int`,
    );
    const page = rows.slice(0, limit);
    const lastRow = page.at(-1);
    return {
      items: page.map((row) => row.delivery),
      more: rows.length > limit,
      last: rows.length > limit && lastRow ? { k: lastRow.k, i: lastRow.i } : null,
    };
  },
};
