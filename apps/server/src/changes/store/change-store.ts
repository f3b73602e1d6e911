import type { HistoryChanges, LicenceWarning, OpenChangeBody, OrderChange } from '@sales-order/contract';

import type { Scope } from '../../auth/scope.js';
import type { Db } from '../../db/transactions.js';
import { LOCKED_IN_SCOPE, withinLocations } from '../../db/within-locations.js';
import { Prisma } from '../../generated/prisma/client.js';
import type { ChargeToWrite, TotalsToWrite } from '../../orders/order-columns.js';
import { recordOrderEvent } from '../../orders/store/order-event-store.js';
import type { ChangePlan, StoredLine } from '../change-model.js';

/**
 * Every statement of change requests (`sales_order_changes`, migration
 * 20261207131000_sales_order_changes) and of applying one to the order's lines. A change is
 * located by its order: each statement either joins the order in the caller's scope or runs after
 * the order's row lock was taken in scope (LOCKED_IN_SCOPE). Decimals travel as text.
 */

/** What a change keeps of its preview: the order after it, the totals before, the differences and the licence findings. */
export type ChangePreview = Pick<OrderChange, 'order' | 'totals_before' | 'differences' | 'licence'>;

/**
 * A change's row as the API shows it, with its order's location. Only ever selected by a
 * statement that applies the caller's scope to the order (withinLocations, LOCKED_IN_SCOPE).
 */
const CHANGE_COLUMNS = Prisma.sql`/* location scope: the statement selecting these applies it */ c.id AS change_id, c.sales_order_id,
  (SELECT so.location_id FROM sales_orders so WHERE so.id = c.sales_order_id) AS location_id, c.status, c.reason, c.base_version,
  c.applied_version, to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS created_at, c.created_by,
  to_char(c.ended_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS ended_at, c.ended_by, c.preview`;

type ChangeRow = Omit<OrderChange, keyof ChangePreview> & { preview: ChangePreview };

const toChange = ({ preview, ...row }: ChangeRow): OrderChange => ({ ...row, ...preview });

/** An open change as apply reads it under its row lock. */
export interface LockedChange {
  change: OrderChange;
  requested: Pick<OpenChangeBody, 'details' | 'other_charges'>;
}

export const changeStore = {
  /**
   * The order's lines with what was delivered of each, and its charges: after the order's row
   * lock. With `lockLines`, the lines are locked too, in id order (the order a delivery locks
   * them in, after the same order row lock), so that no delivery moves them under an apply.
   */
  linesOf: async (
    db: Db,
    orderId: number,
    lockLines: boolean,
  ): Promise<{ lines: StoredLine[]; charges: ChargeToWrite[] }> => {
    const lines = await db.$queryRaw<StoredLine[]>`
      SELECT d.id, d.line_no, d.product_id, d.packsize_id, d.quantity::text, d.rate::text, d.amount::text, d.remarks,
        d.delivered_quantity::text, d.returned_quantity::text, d.short_closed_quantity::text,
        d.delivered_quantity > 0 OR EXISTS (SELECT 1 FROM delivery_lines l WHERE l.sales_order_detail_id = d.id)
          AS has_deliveries
      FROM sales_order_details d WHERE d.sales_order_id = ${orderId}::int
      ORDER BY d.id
      ${lockLines ? Prisma.sql`FOR UPDATE OF d` : Prisma.empty}`;
    const charges = await db.$queryRaw<ChargeToWrite[]>`
      SELECT description, amount::text FROM sales_order_other_charges WHERE sales_order_id = ${orderId}::int
      ORDER BY line_no`;
    return { lines: lines.sort((a, b) => a.line_no - b.line_no), charges };
  },

  /** Whether the order (locked in scope) has an open change. */
  hasOpen: async (db: Db, orderId: number): Promise<boolean> => {
    const [row] = await db.$queryRaw<{ open: boolean }[]>`
      SELECT EXISTS (SELECT 1 FROM sales_order_changes c JOIN sales_orders o ON o.id = c.sales_order_id
        WHERE c.sales_order_id = ${orderId}::int AND c.status = 'open' AND ${LOCKED_IN_SCOPE}) AS open`;
    return row!.open;
  },

  /** Records an open change on an order locked in scope. */
  insert: async (
    db: Db,
    change: {
      orderId: number;
      reason: string;
      baseVersion: number;
      actor: string | null;
      requested: Pick<OpenChangeBody, 'details' | 'other_charges'>;
      preview: ChangePreview;
    },
  ): Promise<OrderChange> => {
    const [row] = await db.$queryRaw<ChangeRow[]>`
      WITH c AS (
        INSERT INTO sales_order_changes (sales_order_id, reason, base_version, requested, preview, created_by)
        SELECT o.id, ${change.reason}, ${change.baseVersion}::int, ${JSON.stringify(change.requested)}::jsonb,
          ${JSON.stringify(change.preview)}::jsonb, ${change.actor}::text
        FROM sales_orders o WHERE o.id = ${change.orderId}::int AND ${LOCKED_IN_SCOPE}
        RETURNING *)
      SELECT ${CHANGE_COLUMNS} FROM c`;
    return toChange(row!);
  },

  /** Locks a change of the order (locked in scope) for the rest of the transaction: null when the order has no such change. */
  lock: async (db: Db, orderId: number, changeId: number): Promise<LockedChange | null> => {
    const [row] = await db.$queryRaw<(ChangeRow & { requested: LockedChange['requested'] })[]>`
      SELECT ${CHANGE_COLUMNS}, c.requested FROM sales_order_changes c JOIN sales_orders o ON o.id = c.sales_order_id
      WHERE c.id = ${changeId}::int AND c.sales_order_id = ${orderId}::int AND ${LOCKED_IN_SCOPE}
      FOR UPDATE OF c`;
    if (!row) return null;
    const { requested, ...change } = row;
    return { change: toChange(change), requested };
  },

  /** Ends an open change locked by `lock`: applied (with the version it made and its preview as applied) or discarded. */
  end: async (
    db: Db,
    changeId: number,
    actor: string | null,
    outcome: { status: 'applied'; version: number; preview: ChangePreview } | { status: 'discarded' },
  ): Promise<OrderChange> => {
    const applied = outcome.status === 'applied';
    const [row] = await db.$queryRaw<ChangeRow[]>`
      WITH c AS (
        UPDATE sales_order_changes c SET status = ${outcome.status}, ended_at = clock_timestamp(), ended_by = ${actor}::text,
          applied_version = ${applied ? outcome.version : null}::int,
          preview = coalesce(${applied ? JSON.stringify(outcome.preview) : null}::jsonb, c.preview)
        FROM sales_orders o WHERE o.id = c.sales_order_id AND c.id = ${changeId}::int AND ${LOCKED_IN_SCOPE}
        RETURNING c.*)
      SELECT ${CHANGE_COLUMNS} FROM c`;
    return toChange(row!);
  },

  /** The changes of a live order in the caller's scope, newest first; null when there is no such order. */
  list: async (db: Db, orderId: number, scope: Scope): Promise<OrderChange[] | null> => {
    const [row] = await db.$queryRaw<{ changes: ChangeRow[] | null }[]>`
      SELECT (SELECT json_agg(x ORDER BY x.change_id DESC) FROM (
          SELECT ${CHANGE_COLUMNS} FROM sales_order_changes c WHERE c.sales_order_id = o.id) x) AS changes
      FROM sales_orders o
      WHERE o.id = ${orderId}::int AND o.deleted_at IS NULL AND ${withinLocations(scope, 'o.location_id')}`;
    return row ? (row.changes ?? []).map(toChange) : null;
  },

  /**
   * Applies a planned change to an order and its lines locked in scope: changed lines updated in
   * place (their ids, and so their deliveries, stay), removed ones deleted, new ones numbered
   * after the last; the charges replaced when the change sends them; the order's totals, version
   * and stamp; the history entry and the `sales_order.changed` event. The line triggers move
   * the licence running totals by what each line now holds. Returns the new version.
   */
  apply: async (
    db: Db,
    orderId: number,
    plan: ChangePlan,
    history: {
      actor: string | null;
      reason: string;
      changes: HistoryChanges;
      acknowledgedWarnings: LicenceWarning[];
    },
  ): Promise<number> => {
    const changed = plan.lines.filter((line) => line.id !== null);
    const added = plan.lines.filter((line) => line.id === null);
    await db.$executeRaw`
      WITH doc AS (
        SELECT * FROM json_to_recordset(${JSON.stringify(changed)}::json) AS l(id int, product_id int, packsize_id int,
          quantity numeric, rate numeric, amount numeric, remarks text))
      UPDATE sales_order_details d SET product_id = l.product_id, packsize_id = l.packsize_id, quantity = l.quantity,
        rate = l.rate, amount = l.amount, remarks = l.remarks
      FROM doc l JOIN sales_orders o ON o.id = ${orderId}::int AND ${LOCKED_IN_SCOPE}
      WHERE d.id = l.id AND d.sales_order_id = o.id
        AND (d.product_id, d.packsize_id, d.quantity, d.rate, d.remarks)
          IS DISTINCT FROM (l.product_id, l.packsize_id, l.quantity, l.rate, l.remarks)`;
    if (plan.removed.length > 0) {
      await db.$executeRaw`
        DELETE FROM sales_order_details WHERE sales_order_id = ${orderId}::int AND id = ANY(${plan.removed}::int[])`;
    }
    if (added.length > 0) {
      // The line copies (order date, quota flag) as the order states them: checked by the lines' statement trigger.
      await db.$executeRaw`
        INSERT INTO sales_order_details (sales_order_id, line_no, product_id, packsize_id, quantity, rate, amount, remarks,
          order_date, consumes_quota)
        SELECT o.id, n.last + l.ord, l.product_id, l.packsize_id, l.quantity, l.rate, l.amount, l.remarks,
          o.sales_order_date, o.deleted_at IS NULL AND o.status IN ('confirmed', 'closed')
        FROM sales_orders o
          CROSS JOIN (SELECT coalesce(max(line_no), 0) AS last FROM sales_order_details WHERE sales_order_id = ${orderId}::int) n
          CROSS JOIN ROWS FROM (json_to_recordset(${JSON.stringify(added)}::json) AS (product_id int, packsize_id int,
            quantity numeric, rate numeric, amount numeric, remarks text)) WITH ORDINALITY
            AS l(product_id, packsize_id, quantity, rate, amount, remarks, ord)
        WHERE o.id = ${orderId}::int AND ${LOCKED_IN_SCOPE}`;
    }
    if (plan.charges !== null) {
      await db.$executeRaw`DELETE FROM sales_order_other_charges WHERE sales_order_id = ${orderId}::int`;
      await db.$executeRaw`
        INSERT INTO sales_order_other_charges (sales_order_id, line_no, description, amount)
        SELECT ${orderId}::int, c.ord, c.description, c.amount
        FROM ROWS FROM (json_to_recordset(${JSON.stringify(plan.charges)}::json) AS (description text, amount numeric))
          WITH ORDINALITY AS c(description, amount, ord)`;
    }
    const totals: TotalsToWrite = plan.totals;
    const [row] = await db.$queryRaw<{ version: number }[]>`
      WITH header AS (
        UPDATE sales_orders o SET subtotal = ${totals.subtotal}::numeric,
          other_charges_total = ${totals.other_charges_total}::numeric, grand_total = ${totals.grand_total}::numeric,
          version = o.version + 1, updated_at = clock_timestamp(), updated_by = ${history.actor}::text
        WHERE o.id = ${orderId}::int AND ${LOCKED_IN_SCOPE}
        RETURNING o.id, o.version, o.updated_at)
      INSERT INTO sales_order_history (sales_order_id, version, action, at, by, changes, reason, acknowledged_warnings)
      SELECT h.id, h.version, 'change', h.updated_at, ${history.actor}::text, ${JSON.stringify(history.changes)}::jsonb,
        ${history.reason}::text,
        ${history.acknowledgedWarnings.length === 0 ? null : JSON.stringify(history.acknowledgedWarnings)}::jsonb
      FROM header h
      RETURNING version`;
    await recordOrderEvent(db, orderId, 'sales_order.changed');
    return row!.version;
  },
};
