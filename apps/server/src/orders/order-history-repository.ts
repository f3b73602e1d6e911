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

  insert: async (db: Db, entry: HistoryEntryToStore): Promise<void> => {
    await db.salesOrderHistory.create({ data: entry });
  },
};
