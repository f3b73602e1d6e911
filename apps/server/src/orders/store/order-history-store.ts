import type { Scope } from '../../auth/scope.js';
import type { Db } from '../../db/transactions.js';
import { withinLocations } from '../../db/within-locations.js';
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

export interface HistoryPage {
  /** Whether an order with this id was ever created (deleted ones included). */
  exists: boolean;
  entries: StoredHistoryEntry[];
  /** Whether entries follow the page's last one. */
  more: boolean;
}

export const orderHistoryStore = {
  /**
   * A page of an order's entries, oldest first, after version `after`: at most `limit`, and
   * no more than `maxBytes` of changes (JSON text) but for the first, which always comes. One
   * statement over the (sales_order_id, version) index, reading `limit + 1` entries at most.
   * Raw SQL, so Prisma compiles no query plan for it.
   */
  page: async (
    db: Db,
    salesOrderId: number,
    scope: Scope,
    { after, limit, maxBytes }: { after: number; limit: number; maxBytes: number },
  ): Promise<HistoryPage> => {
    const [row] = await db.$queryRaw<HistoryPage[]>`
      WITH page AS (
        SELECT h.*, row_number() OVER w AS n, sum(octet_length(h.changes::text)) OVER w AS running
        FROM (
          SELECT * FROM sales_order_history
          WHERE sales_order_id = ${salesOrderId}::int AND version > ${after}::int
            AND EXISTS (SELECT 1 FROM sales_orders o WHERE o.id = ${salesOrderId}::int AND ${withinLocations(scope, 'o.location_id')})
          ORDER BY version LIMIT ${limit + 1}::int) h
        WINDOW w AS (ORDER BY h.version)),
      kept AS (SELECT * FROM page WHERE n <= ${limit}::int AND (n = 1 OR running <= ${maxBytes}::bigint))
      SELECT EXISTS (SELECT 1 FROM sales_orders o WHERE o.id = ${salesOrderId}::int AND ${withinLocations(scope, 'o.location_id')}) AS exists,
        coalesce((
          SELECT json_agg(json_build_object(
              'version', version, 'action', action,
              'at', to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), 'by', by, 'changes', changes,
              'reason', reason, 'acknowledged_warnings', acknowledged_warnings)
            ORDER BY version)
          FROM kept), '[]') AS entries,
        (SELECT count(*) FROM page) > (SELECT count(*) FROM kept) AS more`;
    return row!;
  },
};
