import type { HistoryAction, HistoryChanges } from '@sales-order/contract';

import type { Prisma } from '../generated/prisma/client.js';
import type { Db } from '../master-data/master-data-repository.js';

/** What a history entry compares: an order's header, lines and charges, deleted or not. */
const orderState = {
  details: { orderBy: { lineNo: 'asc' } },
  otherCharges: { orderBy: { lineNo: 'asc' } },
} satisfies Prisma.SalesOrderInclude;

export type OrderState = Prisma.SalesOrderGetPayload<{ include: typeof orderState }>;

export interface HistoryEntryToStore {
  salesOrderId: number;
  version: number;
  action: HistoryAction;
  at: Date;
  by: string | null;
  changes: HistoryChanges;
}

export const orderHistoryRepository = {
  /** The order as stored now (deleted included): one statement per table, whatever the line count. */
  findState: (db: Db, id: number): Promise<OrderState | null> =>
    db.salesOrder.findUnique({ where: { id }, include: orderState }),

  /** True when an order with this id was ever created (deleted ones included). */
  exists: async (db: Db, id: number): Promise<boolean> => (await db.salesOrder.count({ where: { id } })) === 1,

  insert: async (db: Db, entry: HistoryEntryToStore): Promise<void> => {
    await db.salesOrderHistory.create({ data: entry });
  },

  /** Every entry of an order, oldest first. */
  entries: (db: Db, salesOrderId: number) =>
    db.salesOrderHistory.findMany({
      where: { salesOrderId },
      orderBy: { version: 'asc' },
      select: { version: true, action: true, at: true, by: true, changes: true },
    }),
};
