import { Prisma } from '../generated/prisma/client.js';
import type { Db } from '../master-data/master-data-repository.js';
import type { PricedLine } from './order-pricing.js';

/**
 * The statements that write orders, and what the writes read first (the order reads are in
 * order-read-repository.ts). Lines and charges are written with one statement per set.
 */

export interface LineToStore extends PricedLine {
  productId: number;
  packsizeId: number | null;
  remarks: string | null;
}

export interface ChargeToStore {
  description: string;
  amount: string;
}

export interface OrderToStore {
  salesOrderNo: string;
  /** The sequence in the order's series; null for a free-form number. */
  sequence: bigint | null;
  locationId: number;
  financialYearId: number;
  customerId: number;
  salesOrderDate: Date;
  remarks: string | null;
  subtotal: string;
  otherChargesTotal: string;
  grandTotal: string;
  createdBy: string | null;
}

/**
 * A unique-constraint violation: the only unique key an order insert can break is its number
 * (the index over `sales_order_number_key(sales_order_no)`, across every order).
 */
export const isDuplicateKeyError = (error: unknown): boolean =>
  error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002';

const versionIn = (expectedVersions: readonly number[] | undefined) =>
  expectedVersions === undefined ? {} : { version: { in: [...expectedVersions] } };

export const orderRepository = {
  /** The version of a live order; null when it does not exist or is deleted. */
  liveVersion: async (db: Db, id: number): Promise<number | null> =>
    (await db.salesOrder.findFirst({ where: { id, deletedAt: null }, select: { version: true } }))?.version ?? null,

  /**
   * Takes the row lock of a live order for the rest of the transaction, bumping its version
   * and stamping the updater. Null when the order does not exist, is deleted, or is not at one
   * of `expectedVersions` (when given): the check and the bump are one statement, so of two
   * writers expecting the same version only the first succeeds.
   */
  lockForUpdate: async (db: Db, id: number, actor: string | null, expectedVersions?: readonly number[]) => {
    const [order] = await db.salesOrder.updateManyAndReturn({
      where: { id, deletedAt: null, ...versionIn(expectedVersions) },
      data: { version: { increment: 1 }, updatedAt: new Date(), updatedBy: actor },
      select: {
        id: true,
        salesOrderNo: true,
        customerId: true,
        salesOrderDate: true,
        locationId: true,
        financialYearId: true,
        subtotal: true,
        otherChargesTotal: true,
        version: true,
      },
    });
    return order ?? null;
  },

  /** The products and packsizes an order's lines refer to. */
  findLineReferences: async (db: Db, salesOrderId: number) => {
    const lines = await db.salesOrderDetail.findMany({
      where: { salesOrderId },
      select: { productId: true, packsizeId: true },
    });
    return {
      productIds: new Set(lines.map((line) => line.productId)),
      packsizeIds: new Set(lines.flatMap((line) => (line.packsizeId === null ? [] : [line.packsizeId]))),
    };
  },

  /** Soft-deletes a live order at one of `expectedVersions` (any version when not given). */
  softDelete: async (
    db: Db,
    id: number,
    actor: string | null,
    expectedVersions?: readonly number[],
  ): Promise<boolean> => {
    const now = new Date();
    const { count } = await db.salesOrder.updateMany({
      where: { id, deletedAt: null, ...versionIn(expectedVersions) },
      data: { deletedAt: now, deletedBy: actor, updatedAt: now, updatedBy: actor, version: { increment: 1 } },
    });
    return count === 1;
  },

  /**
   * Hands out the next sequence of a series. The counter row stays locked until the
   * transaction ends, so concurrent creates (in any instance) queue here and never share a
   * number; a rolled-back create gives its number back, a committed one keeps it forever.
   */
  nextSequence: async (db: Db, locationId: number, financialYearId: number): Promise<bigint> => {
    const [row] = await db.$queryRaw<{ last_sequence: bigint }[]>`
      INSERT INTO sales_order_counters (location_id, financial_year_id, last_sequence)
      VALUES (${locationId}, ${financialYearId}, 1)
      ON CONFLICT (location_id, financial_year_id)
      DO UPDATE SET last_sequence = sales_order_counters.last_sequence + 1
      RETURNING last_sequence`;
    return BigInt(row!.last_sequence);
  },

  /**
   * Locks a series' counter row for the rest of the transaction (creating it at 0) and answers
   * where it stands, so a supplied number is weighed against a counter nobody else moves.
   */
  lockCounter: async (db: Db, locationId: number, financialYearId: number): Promise<bigint> => {
    const [row] = await db.$queryRaw<{ last_sequence: bigint }[]>`
      INSERT INTO sales_order_counters (location_id, financial_year_id, last_sequence)
      VALUES (${locationId}, ${financialYearId}, 0)
      ON CONFLICT (location_id, financial_year_id)
      DO UPDATE SET last_sequence = sales_order_counters.last_sequence
      RETURNING last_sequence`;
    return BigInt(row!.last_sequence);
  },

  /** Sets a counter row locked by `lockCounter`. */
  setCounter: async (db: Db, locationId: number, financialYearId: number, lastSequence: bigint): Promise<void> => {
    await db.salesOrderCounter.update({
      where: { locationId_financialYearId: { locationId, financialYearId } },
      data: { lastSequence },
    });
  },

  insert: (db: Db, order: OrderToStore) =>
    db.salesOrder.create({ data: { ...order, updatedBy: order.createdBy }, select: { id: true } }),

  update: (db: Db, id: number, data: Prisma.SalesOrderUncheckedUpdateInput) =>
    db.salesOrder.update({ where: { id }, data, select: { id: true } }),

  insertLines: async (db: Db, salesOrderId: number, lines: LineToStore[]): Promise<void> => {
    await db.salesOrderDetail.createMany({
      data: lines.map((line, index) => ({
        salesOrderId,
        lineNo: index + 1,
        productId: line.productId,
        packsizeId: line.packsizeId,
        quantity: line.quantity.toFixed(3),
        rate: line.rate.toFixed(4),
        amount: line.amount.toFixed(2),
        remarks: line.remarks,
      })),
    });
  },

  insertCharges: async (db: Db, salesOrderId: number, charges: ChargeToStore[]): Promise<void> => {
    if (charges.length === 0) return;
    await db.salesOrderCharge.createMany({
      data: charges.map((charge, index) => ({ salesOrderId, lineNo: index + 1, ...charge })),
    });
  },

  deleteLines: (db: Db, salesOrderId: number) => db.salesOrderDetail.deleteMany({ where: { salesOrderId } }),

  deleteCharges: (db: Db, salesOrderId: number) => db.salesOrderCharge.deleteMany({ where: { salesOrderId } }),
};
