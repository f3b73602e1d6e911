import type { Db } from '../../db/transactions.js';
import type { Prisma } from '../../generated/prisma/client.js';

/** Reads of the audit trail. Its writes are part of the orders' write statements (store/order-write-store.ts). */

export interface StoredHistoryEntry {
  version: number;
  action: string;
  /** The spec's DateTime (YYYY-MM-DD HH:mm:ss, UTC), formatted in SQL. */
  at: string;
  by: string | null;
  changes: Prisma.JsonValue;
  reason: string | null;
  acknowledged_warnings: Prisma.JsonValue;
}

export const orderHistoryStore = {
  /**
   * Whether an order with this id was ever created (deleted ones included), and its entries,
   * oldest first: one statement. Raw SQL, so Prisma compiles no query plan for it.
   */
  entries: async (db: Db, salesOrderId: number): Promise<{ exists: boolean; entries: StoredHistoryEntry[] }> => {
    const [row] = await db.$queryRaw<{ exists: boolean; entries: StoredHistoryEntry[] }[]>`
      SELECT EXISTS (SELECT 1 FROM sales_orders WHERE id = ${salesOrderId}::int) AS exists,
        coalesce((
          SELECT json_agg(json_build_object(
              'version', version, 'action', action,
              'at', to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), 'by', by, 'changes', changes,
              'reason', reason, 'acknowledged_warnings', acknowledged_warnings)
            ORDER BY version)
          FROM sales_order_history WHERE sales_order_id = ${salesOrderId}::int), '[]') AS entries`;
    return row!;
  },
};
