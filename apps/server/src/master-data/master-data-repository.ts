import type { Prisma, PrismaClient } from '../generated/prisma/client.js';

/** A client or an open transaction: lookups run in whichever the caller holds. */
export type Db = PrismaClient | Prisma.TransactionClient;

/**
 * Reads of the master data the host ERP owns. Each lookup is one query, whatever the number
 * of ids asked for.
 */
export const masterDataRepository = {
  findCustomer: (db: Db, id: number) =>
    db.customer.findUnique({ where: { id }, select: { id: true, name: true, active: true } }),

  findLocation: (db: Db, id: number) =>
    db.location.findUnique({ where: { id }, select: { id: true, code: true, active: true } }),

  findFinancialYear: (db: Db, id: number) =>
    db.financialYear.findUnique({ where: { id }, select: { id: true, startDate: true, active: true } }),

  /** The active financial year containing `date`; the earliest-starting one if several do. */
  findFinancialYearCovering: (db: Db, date: Date) =>
    db.financialYear.findFirst({
      where: { active: true, startDate: { lte: date }, endDate: { gte: date } },
      orderBy: [{ startDate: 'asc' }, { id: 'asc' }],
      select: { id: true, startDate: true },
    }),

  findProducts: (db: Db, ids: number[]) =>
    db.product.findMany({
      where: { id: { in: ids } },
      select: { id: true, name: true, active: true, requiresLicence: true },
    }),

  findPacksizes: (db: Db, ids: number[]) =>
    db.packsize.findMany({
      where: { id: { in: ids } },
      select: { id: true, productId: true, active: true },
    }),
};
