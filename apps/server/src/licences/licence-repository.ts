import type { Scope } from '../auth/scope.js';
import type { Db } from '../db/transactions.js';
import { withinLocations } from '../db/within-locations.js';
import { Prisma, type Product, type ProductLicence } from '../generated/prisma/client.js';
import { formatCalendarDate, parseCalendarDate } from '../shared/calendar.js';
import { type Decimal, toDecimal } from '../shared/money.js';

/** A licence as the rules see it; `licensedQuantity` null means unlimited. */
export type Licence = Pick<ProductLicence, 'id' | 'productId' | 'licenceNo' | 'validFrom' | 'validTo'> & {
  licensedQuantity: Decimal | null;
};

/** A product with what its licence check needs: its licences, and the quantity orders hold of each quota. */
export type ProductWithLicences = Pick<Product, 'id' | 'name' | 'active' | 'requiresLicence'> & {
  /** The active licences not ended before the date, by validFrom then id; none when it needs no licence. */
  licences: Licence[];
  /**
   * By licence id, for each limited licence valid on the date: the quantity live orders dated
   * in that licence's window hold of the product.
   */
  consumed: Map<number, Decimal>;
};

/** The statement's row: dates and decimals as text, so that no float ever holds a quantity. */
type ProductLicencesRow = Pick<Product, 'id' | 'name' | 'active' | 'requiresLicence'> & {
  licences: {
    id: number;
    licenceNo: string;
    validFrom: string;
    validTo: string;
    licensedQuantity: string | null;
    consumed: string | null;
  }[];
};

/** Every statement about product licences and what orders have used of them. */
export const licenceRepository = {
  /** Whether a live or deleted order with this id lies in the caller's scope. */
  orderInScope: async (db: Db, id: number, scope: Scope): Promise<boolean> => {
    const [row] = await db.$queryRaw<{ found: boolean }[]>`
      SELECT EXISTS (SELECT 1 FROM sales_orders o WHERE o.id = ${id}::int AND ${withinLocations(scope, 'o.location_id')}) AS found`;
    return row!.found;
  },

  /**
   * These products with their active licences that have not ended before `date` (those valid
   * on it, and those starting later, which may extend the cover), and what live orders in each
   * limited valid licence's window hold of the product: one statement for any number of
   * products. Soft-deleted orders do not count, and neither does `excludeOrderId` (the order
   * being edited). The sum is a range scan of `sales_order_details_licence_use_idx` over the
   * licence's window: the lines carry their order's date and live flag (migration
   * 20261122072000_licence_use_index), so the product's history outside the window is never read.
   * With `lockQuota` (a confirm, in its transaction) the statement first takes the quota locks
   * of the limited products and sums after they are granted (licence_quota_consumed, migration
   * 20261127130000_licence_quota_lock), holding them to the commit.
   */
  findProductsWithLicences: async (
    db: Db,
    productIds: number[],
    date: Date,
    excludeOrderId?: number,
    lockQuota = false,
  ): Promise<ProductWithLicences[]> => {
    if (productIds.length === 0) return [];
    const rows = await db.$queryRaw<ProductLicencesRow[]>(
      productLicencesQuery(productIds, date, excludeOrderId, lockQuota),
    );
    return rows.map(({ licences, ...product }) => ({
      ...product,
      licences: licences.map((licence) => ({
        id: licence.id,
        productId: product.id,
        licenceNo: licence.licenceNo,
        validFrom: parseCalendarDate(licence.validFrom),
        validTo: parseCalendarDate(licence.validTo),
        licensedQuantity: licence.licensedQuantity === null ? null : toDecimal(licence.licensedQuantity),
      })),
      consumed: new Map(
        licences.flatMap((licence) => (licence.consumed === null ? [] : [[licence.id, toDecimal(licence.consumed)]])),
      ),
    }));
  },
};

/** The statement of findProductsWithLicences (exported for its plan test). */
export const productLicencesQuery = (
  productIds: number[],
  date: Date,
  excludeOrderId?: number,
  lockQuota = false,
): Prisma.Sql => {
  const onDate = formatCalendarDate(date);
  const sum = Prisma.sql`(
    SELECT COALESCE(SUM(d.quantity), 0)::text
    FROM sales_order_details d
    WHERE d.consumes_quota AND d.product_id = l.product_id
      AND d.order_date BETWEEN l.valid_from AND l.valid_to
      ${excludeOrderId === undefined ? Prisma.empty : Prisma.sql`AND d.sales_order_id <> ${excludeOrderId}`})`;
  // Locked: the function's sum, read once the locks are granted. The statement's own sum only
  // for a licence the function did not see: one the host changed while this statement waited.
  const consumed = lockQuota
    ? Prisma.sql`COALESCE((SELECT q.consumed::text FROM quota q WHERE q.licence_id = l.id), ${sum})`
    : sum;
  return Prisma.sql`
    ${
      lockQuota
        ? Prisma.sql`WITH quota AS MATERIALIZED (
            SELECT * FROM licence_quota_consumed(${productIds}::int[], ${onDate}::date, ${excludeOrderId ?? null}::int))`
        : Prisma.empty
    }
    SELECT p.id, p.name, p.active, p.requires_licence AS "requiresLicence",
           COALESCE((
             SELECT json_agg(json_build_object(
                      'id', l.id, 'licenceNo', l.licence_no,
                      'validFrom', to_char(l.valid_from, 'YYYY-MM-DD'), 'validTo', to_char(l.valid_to, 'YYYY-MM-DD'),
                      'licensedQuantity', l.licensed_quantity::text,
                      'consumed', CASE WHEN l.licensed_quantity IS NOT NULL AND l.valid_from <= ${onDate}::date
                        THEN ${consumed} END)
                    ORDER BY l.valid_from, l.id)
             FROM product_licences l
             WHERE p.requires_licence AND l.product_id = p.id AND l.active AND l.valid_to >= ${onDate}::date
           ), '[]') AS licences
    FROM products p
    WHERE p.id IN (${Prisma.join(productIds)})`;
};
