import type { DropdownType } from '@sales-order/contract';

import type { Prisma, PrismaClient } from '../generated/prisma/client.js';

/** A client or an open transaction: lookups run in whichever the caller holds. */
export type Db = PrismaClient | Prisma.TransactionClient;

/** The id and name of a master record: what a dropdown offers. */
export type NamedRecord = Prisma.CustomerGetPayload<{ select: { id: true; name: true } }>;

// Sorted in SQL by the database's collation, the same order the host ERP's own lists use; the
// id breaks ties so that equal names always come in the same order.
const activeByName = () => ({
  where: { active: true },
  orderBy: [{ name: 'asc' as const }, { id: 'asc' as const }],
  select: { id: true, name: true } as const,
});

const ACTIVE_RECORDS: Record<DropdownType, (db: Db) => Promise<NamedRecord[]>> = {
  'field-officers': (db) => db.fieldOfficer.findMany(activeByName()),
  products: (db) => db.product.findMany(activeByName()),
  locations: (db) => db.location.findMany(activeByName()),
  customers: (db) => db.customer.findMany(activeByName()),
  ports: (db) => db.port.findMany(activeByName()),
};

/** The master table behind each dropdown type, by the name its change notices carry. */
export const DROPDOWN_TYPE_OF_TABLE: Readonly<Record<string, DropdownType>> = {
  field_officers: 'field-officers',
  products: 'products',
  locations: 'locations',
  customers: 'customers',
  ports: 'ports',
};

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

  /** The active records of one master table, by name: one query, whatever the row count. */
  listActive: (db: Db, type: DropdownType): Promise<NamedRecord[]> => ACTIVE_RECORDS[type](db),
};
