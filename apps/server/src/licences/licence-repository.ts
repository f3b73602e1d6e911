import { Prisma } from '../generated/prisma/client.js';
import type { Db } from '../master-data/master-data-repository.js';
import { type Decimal, toDecimal } from '../shared/money.js';

const licenceFields = {
  id: true,
  productId: true,
  licenceNo: true,
  validFrom: true,
  validTo: true,
  licensedQuantity: true,
} satisfies Prisma.ProductLicenceSelect;

/** A licence as the rules see it; `licensedQuantity` null means unlimited. */
export type Licence = Prisma.ProductLicenceGetPayload<{ select: typeof licenceFields }>;

/** Every statement about product licences and what orders have used of them. */
export const licenceRepository = {
  /**
   * The active licences of these products that have not ended before `date`: those valid on
   * it, and those starting later, which may extend the cover. One query for all products.
   */
  findNotEndedBefore: (db: Db, productIds: number[], date: Date): Promise<Licence[]> =>
    db.productLicence.findMany({
      where: { productId: { in: productIds }, active: true, validTo: { gte: date } },
      orderBy: [{ productId: 'asc' }, { validFrom: 'asc' }, { id: 'asc' }],
      select: licenceFields,
    }),

  /**
   * The quantity live orders hold of each licence's product, dated inside that licence's own
   * validity window: one aggregate query, whatever the number of licences. Soft-deleted
   * orders do not count, and neither does `excludeOrderId` (the order being edited).
   */
  consumedQuantities: async (db: Db, licenceIds: number[], excludeOrderId?: number): Promise<Map<number, Decimal>> => {
    if (licenceIds.length === 0) return new Map();
    const rows = await db.$queryRaw<{ licence_id: number; consumed: string }[]>`
      SELECT l.id AS licence_id, SUM(d.quantity)::text AS consumed
      FROM product_licences l
      JOIN sales_order_details d ON d.product_id = l.product_id
      JOIN sales_orders o ON o.id = d.sales_order_id
      WHERE l.id IN (${Prisma.join(licenceIds)})
        AND o.deleted_at IS NULL
        AND o.sales_order_date BETWEEN l.valid_from AND l.valid_to
        ${excludeOrderId === undefined ? Prisma.empty : Prisma.sql`AND o.id <> ${excludeOrderId}`}
      GROUP BY l.id`;
    // The sum travels as text so that no float ever holds it.
    return new Map(rows.map((row) => [row.licence_id, toDecimal(row.consumed)]));
  },
};
