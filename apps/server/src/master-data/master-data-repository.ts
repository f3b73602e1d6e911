import type { DropdownType } from '@sales-order/contract';

import type { Db } from '../db/transactions.js';
import type { Prisma } from '../generated/prisma/client.js';

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

/** Reads of the master data the host ERP owns for the dropdowns (an order's references: orders/store). */
export const masterDataRepository = {
  /** The active records of one master table, by name: one query, whatever the row count. */
  listActive: (db: Db, type: DropdownType): Promise<NamedRecord[]> => ACTIVE_RECORDS[type](db),
};
