import type { Prisma } from '../generated/prisma/client.js';
import type { Db } from '../master-data/master-data-repository.js';

/**
 * The reads of orders. Reads cost a fixed number of queries whatever the line count. The
 * writes are in order-write-repository.ts.
 */

const orderWithLines = {
  customer: { select: { name: true } },
  details: {
    orderBy: { lineNo: 'asc' },
    include: { product: { select: { name: true } } },
  },
  otherCharges: { orderBy: { lineNo: 'asc' } },
} satisfies Prisma.SalesOrderInclude;

export type StoredOrder = Prisma.SalesOrderGetPayload<{ include: typeof orderWithLines }>;

export const orderRepository = {
  /** A live (not deleted) order with its customer name, lines with product names, and charges. */
  findLive: (db: Db, id: number): Promise<StoredOrder | null> =>
    db.salesOrder.findFirst({ where: { id, deletedAt: null }, include: orderWithLines }),

  lastSequence: async (db: Db, locationId: number, financialYearId: number): Promise<bigint> => {
    const counter = await db.salesOrderCounter.findUnique({
      where: { locationId_financialYearId: { locationId, financialYearId } },
      select: { lastSequence: true },
    });
    return counter?.lastSequence ?? 0n;
  },

  /**
   * The number of a series with the highest sequence, deleted orders included. Only numbers of
   * the series carry a sequence; free-form numbers are in no series.
   */
  maxNumber: async (db: Db, locationId: number, financialYearId: number): Promise<string | null> => {
    const order = await db.salesOrder.findFirst({
      where: { locationId, financialYearId, sequence: { not: null } },
      orderBy: { sequence: 'desc' },
      select: { salesOrderNo: true },
    });
    return order?.salesOrderNo ?? null;
  },
};
