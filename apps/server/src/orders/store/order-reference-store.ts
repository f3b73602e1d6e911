import type { Db } from '../../db/transactions.js';
import { Prisma } from '../../generated/prisma/client.js';

/**
 * The master data an order refers to, in one statement (one round trip) for every table,
 * whatever the number of lines. Raw SQL: Prisma never compiles a query plan for it.
 */

/** What to look up; an undefined id or date looks nothing up. */
export interface ReferenceLookup {
  customerId?: number;
  locationId?: number;
  salesOrderDate?: string;
  productIds: number[];
  packsizeIds: number[];
  fieldOfficerId?: number;
  portId?: number;
}

/** The rows the references name: null (or absent from the lists) when they do not exist. */
export interface FoundReferences {
  customer_active: boolean | null;
  location_code: string | null;
  location_active: boolean | null;
  financial_year_id: number | null;
  /** YYYY-MM-DD (to_char: whatever the DateStyle): a date travels as text, so no time zone shifts it. */
  financial_year_start: string | null;
  products: { id: number; active: boolean }[];
  packsizes: { id: number; productId: number; active: boolean }[];
  field_officer_active: boolean | null;
  port_active: boolean | null;
}

/** One order's own references (its products and packsizes are looked up for the whole list). */
export type OrderReferencesFound = Omit<FoundReferences, 'products' | 'packsizes'>;

/**
 * The statement of `find`: one row whatever it looks up. `productIds` is an int[] expression, a
 * list or a sub-select of an order's own lines (a confirm's, read with its contents: see
 * orderWriteStore.contentsWithReferences).
 */
export const referencesQuery = (
  { customerId, locationId, salesOrderDate, packsizeIds, fieldOfficerId, portId }: Omit<ReferenceLookup, 'productIds'>,
  productIds: Prisma.Sql,
): Prisma.Sql => Prisma.sql`
  SELECT
    (SELECT active FROM customers WHERE id = ${customerId ?? null}::int) AS customer_active,
    l.code AS location_code, l.active AS location_active,
    y.id AS financial_year_id, to_char(y.start_date, 'YYYY-MM-DD') AS financial_year_start,
    (SELECT coalesce(json_agg(json_build_object('id', id, 'active', active)), '[]')
      FROM products WHERE id = ANY(${productIds})) AS products,
    (SELECT coalesce(json_agg(json_build_object('id', id, 'productId', product_id, 'active', active)), '[]')
      FROM packsizes WHERE id = ANY(${packsizeIds}::int[])) AS packsizes,
    (SELECT active FROM field_officers WHERE id = ${fieldOfficerId ?? null}::int) AS field_officer_active,
    (SELECT active FROM ports WHERE id = ${portId ?? null}::int) AS port_active
  FROM (SELECT 1) AS one
  LEFT JOIN locations l ON l.id = ${locationId ?? null}::int
  LEFT JOIN LATERAL (
    SELECT id, start_date FROM financial_years
    WHERE active AND start_date <= ${salesOrderDate ?? null}::date AND end_date >= ${salesOrderDate ?? null}::date
    ORDER BY start_date, id LIMIT 1) y ON true`;

export const orderReferenceStore = {
  /**
   * The financial year is the active one containing the date, the earliest-starting if several do.
   */
  find: async (db: Db, { productIds, ...lookup }: ReferenceLookup): Promise<FoundReferences> => {
    const [row] = await db.$queryRaw<FoundReferences[]>(referencesQuery(lookup, Prisma.sql`${productIds}::int[]`));
    // The statement selects from no table at the top, so it always returns its one row.
    return row!;
  },

  /**
   * The references of many orders (a bulk create's) in one statement, whatever their number:
   * each order's customer, location, financial year, field officer and port in list order, and
   * every product and packsize any of them names (shared: an order's check reads its own by id).
   */
  findEach: async (
    db: Db,
    lookups: readonly ReferenceLookup[],
  ): Promise<{
    orders: OrderReferencesFound[];
    products: FoundReferences['products'];
    packsizes: FoundReferences['packsizes'];
  }> => {
    const [row] = await db.$queryRaw<
      {
        orders: OrderReferencesFound[];
        products: FoundReferences['products'];
        packsizes: FoundReferences['packsizes'];
      }[]
    >`
      WITH input AS (
        SELECT * FROM unnest(
          ${lookups.map((lookup) => lookup.customerId ?? null)}::int[],
          ${lookups.map((lookup) => lookup.locationId ?? null)}::int[],
          ${lookups.map((lookup) => lookup.salesOrderDate ?? null)}::date[],
          ${lookups.map((lookup) => lookup.fieldOfficerId ?? null)}::int[],
          ${lookups.map((lookup) => lookup.portId ?? null)}::int[]
        ) WITH ORDINALITY AS i(customer_id, location_id, order_date, field_officer_id, port_id, ord))
      SELECT
        (SELECT coalesce(json_agg(json_build_object(
            'customer_active', c.active, 'location_code', l.code, 'location_active', l.active,
            'financial_year_id', y.id, 'financial_year_start', to_char(y.start_date, 'YYYY-MM-DD'),
            'field_officer_active', f.active, 'port_active', p.active) ORDER BY i.ord), '[]')
          FROM input i
            LEFT JOIN customers c ON c.id = i.customer_id
            LEFT JOIN locations l ON l.id = i.location_id
            LEFT JOIN field_officers f ON f.id = i.field_officer_id
            LEFT JOIN ports p ON p.id = i.port_id
            LEFT JOIN LATERAL (
              SELECT id, start_date FROM financial_years
              WHERE active AND start_date <= i.order_date AND end_date >= i.order_date
              ORDER BY start_date, id LIMIT 1) y ON true) AS orders,
        (SELECT coalesce(json_agg(json_build_object('id', id, 'active', active)), '[]')
          FROM products WHERE id = ANY(${[...new Set(lookups.flatMap((lookup) => lookup.productIds))]}::int[])) AS products,
        (SELECT coalesce(json_agg(json_build_object('id', id, 'productId', product_id, 'active', active)), '[]')
          FROM packsizes WHERE id = ANY(${[...new Set(lookups.flatMap((lookup) => lookup.packsizeIds))]}::int[])) AS packsizes`;
    return row!;
  },
};
