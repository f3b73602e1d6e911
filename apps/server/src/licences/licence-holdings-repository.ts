import type { Db } from '../db/transactions.js';
import { Prisma, type PrismaClient } from '../generated/prisma/client.js';

/** A product's day whose running total is not what its order lines hold; quantities as NUMERIC text. */
export interface HoldingDrift {
  productId: number;
  /** YYYY-MM-DD */
  orderDate: string;
  /** What the lines hold, by the rule (`licence_held_quantity`). */
  counted: string;
  /** What the running total says: the folded day plus its changes not folded yet. */
  recorded: string;
}

export interface HoldingsRecount {
  /** How many of the product's days differ. */
  drifted: number;
  /** The first of them, by product and date (at most the `sample` asked for). */
  sample: HoldingDrift[];
}

/**
 * The statements of the licence quota's running total (migration 20261207041248_licence_holdings,
 * docs/decisions/licence-holdings-ledger.md): the triggers append every change of what the lines
 * hold to licence_holding_changes, and these fold them into one row per product and day, and
 * recount the whole from the lines. Across every location, as the quota is (location scope: the
 * service's own jobs, no caller).
 */
export const licenceHoldingsRepository = {
  /**
   * Moves up to `limit` changes, oldest first, into the per-day totals in one statement; returns
   * how many it moved. Rows another fold holds are skipped, and the totals are written in
   * product and date order, so two instances folding at once neither wait on nor deadlock with
   * each other. Readers see the changes or the totals they went into, never both nor neither
   * (one statement, one commit). Writers only append changes: they never wait for a fold.
   */
  fold: async (db: Db, limit: number): Promise<number> => {
    const [row] = await db.$queryRaw<{ moved: number }[]>`
      WITH moved AS (
        DELETE FROM licence_holding_changes c
        WHERE c.id IN (SELECT id FROM licence_holding_changes ORDER BY id LIMIT ${limit}::int FOR UPDATE SKIP LOCKED)
        RETURNING c.product_id, c.order_date, c.quantity
      ), folded AS (
        INSERT INTO licence_holdings AS h (product_id, order_date, held_quantity)
        SELECT m.product_id, m.order_date, SUM(m.quantity) FROM moved m
        GROUP BY m.product_id, m.order_date
        ORDER BY m.product_id, m.order_date
        ON CONFLICT (product_id, order_date) DO UPDATE SET held_quantity = h.held_quantity + EXCLUDED.held_quantity
        RETURNING 1
      )
      SELECT (SELECT count(*) FROM moved)::int AS moved`;
    return row!.moved;
  },

  /**
   * Recounts what the lines hold per product and day and compares it with the running total:
   * the days that differ. One REPEATABLE READ transaction, so the lines and the totals are read
   * in one snapshot (a change committing meanwhile is in both or in neither) while every statement
   * stays short: the lines are summed `chunk` ids at a time into a temporary table, then compared
   * with the totals in one statement. Takes no lock a writer waits for.
   */
  recount: async (
    prisma: PrismaClient,
    { chunk, sample, timeoutMs }: { chunk: number; sample: number; timeoutMs: number },
  ): Promise<HoldingsRecount> =>
    prisma.$transaction(
      async (tx) => {
        await tx.$executeRaw`
          CREATE TEMPORARY TABLE licence_recount (product_id integer, order_date date, held numeric) ON COMMIT DROP`;
        const [bounds] = await tx.$queryRaw<{ last: number | null }[]>`SELECT max(id) AS last FROM sales_order_details`;
        for (let from = 0; from < (bounds!.last ?? 0); from += chunk) {
          await tx.$executeRaw`
            INSERT INTO licence_recount (product_id, order_date, held)
            SELECT d.product_id, d.order_date,
                   SUM(licence_held_quantity(d.consumes_quota, d.quantity, d.short_closed_quantity,
                                             d.delivered_quantity, d.returned_quantity))
            FROM sales_order_details d
            WHERE d.id > ${from}::int AND d.id <= ${from + chunk}::int AND d.consumes_quota AND d.order_date IS NOT NULL
            GROUP BY d.product_id, d.order_date`;
        }
        const rows = await tx.$queryRaw<(HoldingDrift & { drifted: number })[]>`
          WITH counted AS (
            SELECT product_id, order_date, SUM(held) AS held FROM licence_recount GROUP BY product_id, order_date
          ), recorded AS (
            SELECT product_id, order_date, SUM(held) AS held FROM (
              SELECT product_id, order_date, held_quantity AS held FROM licence_holdings
              UNION ALL
              SELECT product_id, order_date, quantity FROM licence_holding_changes) AS ledger
            GROUP BY product_id, order_date
          )
          SELECT product_id AS "productId", to_char(order_date, 'YYYY-MM-DD') AS "orderDate",
                 COALESCE(counted.held, 0)::text AS counted, COALESCE(recorded.held, 0)::text AS recorded,
                 (count(*) OVER ())::int AS drifted
          FROM counted FULL JOIN recorded USING (product_id, order_date)
          WHERE COALESCE(counted.held, 0) <> COALESCE(recorded.held, 0)
          ORDER BY product_id, order_date
          LIMIT ${sample}::int`;
        return {
          drifted: rows[0]?.drifted ?? 0,
          sample: rows.map(({ drifted: _drifted, ...drift }) => drift),
        };
      },
      { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead, timeout: timeoutMs, maxWait: timeoutMs },
    ),
};
