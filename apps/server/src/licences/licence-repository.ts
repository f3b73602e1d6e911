import type { Scope } from '../auth/scope.js';
import type { SqlDb } from '../db/sql-db.js';
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
   * products. What a line holds is the one rule `licence_held_quantity` (confirmed or closed
   * orders only; the larger of ordered and net delivered, less what a close short-closed), and
   * `excludeOrderId`'s own lines (the order being confirmed or edited) do not count. The sum
   * reads the running totals per product and day (`licence_held`, migration
   * 20261207041248_licence_holdings): at most a row a day of the window, whatever the product's
   * history. With `lockQuota` (a confirm, in its transaction) the statement first takes the
   * quota locks of the limited products and sums after they are granted (licence_quota_consumed,
   * migration 20261127130000_licence_quota_lock), holding them to the commit.
   */
  findProductsWithLicences: async (
    db: SqlDb,
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
  // What other orders hold in the licence's window: licence_held over the running totals
  // (migration 20261207041248_licence_holdings), never the product's lines.
  const sum = Prisma.sql`(
    SELECT h.held::text FROM licence_held(l.product_id, l.valid_from, l.valid_to, ${excludeOrderId ?? null}::int) h)`;
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
