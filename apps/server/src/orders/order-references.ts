import { type ErrorDetail, type SalesOrderDetailInput, ValidationCode } from '@sales-order/contract';

import type { Db } from '../master-data/master-data-repository.js';
import { checkProductsUsable } from '../master-data/product-checks.js';
import { parseCalendarDate } from '../shared/calendar.js';

/**
 * Checks the master data an order refers to: one statement (one round trip) for every table,
 * whatever the number of lines. Every problem is reported (with the path of the offending
 * input), not just the first. Raw SQL: Prisma never compiles a query plan for it.
 */

interface ReferenceInput {
  customerId?: number;
  locationId?: number;
  salesOrderDate?: string;
  details?: Pick<SalesOrderDetailInput, 'product_id' | 'packsize_id'>[];
}

/**
 * What a stored order already refers to (on update). A caller that sends back what it read
 * must not be refused because the host has since deactivated that customer, product or
 * packsize, or closed the financial year: only references the update changes are checked
 * for being active. Existence and packsize ownership are still checked.
 */
export interface CurrentReferences {
  customerId: number;
  salesOrderDate: string;
  productIds: ReadonlySet<number>;
  packsizeIds: ReadonlySet<number>;
}

export interface ResolvedReferences {
  location: { id: number; code: string } | null;
  financialYear: { id: number; startDate: Date } | null;
}

const unique = (ids: number[]) => [...new Set(ids)];

interface ReferenceRow {
  customer_active: boolean | null;
  location_code: string | null;
  location_active: boolean | null;
  financial_year_id: number | null;
  /** YYYY-MM-DD (to_char: whatever the DateStyle): a date travels as text, so no time zone shifts it. */
  financial_year_start: string | null;
  products: { id: number; active: boolean }[];
  packsizes: { id: number; productId: number; active: boolean }[];
}

/**
 * The rows the references name, null (or absent from the lists) when they do not exist. An
 * undefined id or date looks nothing up. The financial year is the active one containing the
 * date, the earliest-starting if several do.
 */
const findReferences = async (
  db: Db,
  {
    customerId,
    locationId,
    salesOrderDate,
    productIds,
    packsizeIds,
  }: {
    customerId?: number;
    locationId?: number;
    salesOrderDate?: string;
    productIds: number[];
    packsizeIds: number[];
  },
): Promise<ReferenceRow> => {
  const [row] = await db.$queryRaw<ReferenceRow[]>`
    SELECT
      (SELECT active FROM customers WHERE id = ${customerId ?? null}::int) AS customer_active,
      l.code AS location_code, l.active AS location_active,
      y.id AS financial_year_id, to_char(y.start_date, 'YYYY-MM-DD') AS financial_year_start,
      (SELECT coalesce(json_agg(json_build_object('id', id, 'active', active)), '[]')
        FROM products WHERE id = ANY(${productIds}::int[])) AS products,
      (SELECT coalesce(json_agg(json_build_object('id', id, 'productId', product_id, 'active', active)), '[]')
        FROM packsizes WHERE id = ANY(${packsizeIds}::int[])) AS packsizes
    FROM (SELECT 1) AS one
    LEFT JOIN locations l ON l.id = ${locationId ?? null}::int
    LEFT JOIN LATERAL (
      SELECT id, start_date FROM financial_years
      WHERE active AND start_date <= ${salesOrderDate ?? null}::date AND end_date >= ${salesOrderDate ?? null}::date
      ORDER BY start_date, id LIMIT 1) y ON true`;
  return row!;
};

export const checkOrderReferences = async (
  db: Db,
  input: ReferenceInput,
  problems: ErrorDetail[],
  current?: CurrentReferences,
): Promise<ResolvedReferences> => {
  const customerId = input.customerId === current?.customerId ? undefined : input.customerId;
  const salesOrderDate = input.salesOrderDate === current?.salesOrderDate ? undefined : input.salesOrderDate;
  const details = input.details ?? [];
  const productIds = unique(details.map((detail) => detail.product_id));
  const packsizeIds = unique(details.flatMap((detail) => (detail.packsize_id == null ? [] : [detail.packsize_id])));

  const found = await findReferences(db, {
    customerId,
    locationId: input.locationId,
    salesOrderDate,
    productIds,
    packsizeIds,
  });
  const customer = found.customer_active === null ? null : { active: found.customer_active };
  const location =
    found.location_code === null ? null : { code: found.location_code, active: found.location_active === true };
  const financialYear =
    found.financial_year_id === null || found.financial_year_start === null
      ? null
      : { id: found.financial_year_id, startDate: parseCalendarDate(found.financial_year_start) };
  const { products, packsizes } = found;

  if (customerId !== undefined && !customer?.active) {
    problems.push({
      path: 'customer_id',
      message: `customer ${customerId} ${customer ? 'is inactive' : 'does not exist'}`,
      code: ValidationCode.unknownCustomer,
    });
  }
  if (input.locationId !== undefined && !location?.active) {
    problems.push({
      path: 'location_id',
      message: `location ${input.locationId} ${location ? 'is inactive' : 'does not exist'}`,
      code: ValidationCode.unknownLocation,
    });
  }
  if (salesOrderDate !== undefined && !financialYear) {
    problems.push({
      path: 'sales_order_date',
      message: `no active financial year contains ${salesOrderDate}`,
      code: ValidationCode.dateOutsideFinancialYears,
    });
  }

  const usableProducts = products.map((product) => ({
    ...product,
    active: product.active || (current?.productIds.has(product.id) ?? false),
  }));
  checkProductsUsable(details, usableProducts, 'details', problems);
  const packsizesById = new Map(packsizes.map((packsize) => [packsize.id, packsize]));
  details.forEach((detail, index) => {
    if (detail.packsize_id == null) return;
    const packsize = packsizesById.get(detail.packsize_id);
    if (!packsize?.active && !(packsize && current?.packsizeIds.has(packsize.id))) {
      problems.push({
        path: `details.${index}.packsize_id`,
        message: `packsize ${detail.packsize_id} ${packsize ? 'is inactive' : 'does not exist'}`,
        code: ValidationCode.unknownPacksize,
      });
    } else if (packsize.productId !== detail.product_id) {
      problems.push({
        path: `details.${index}.packsize_id`,
        message: `packsize ${detail.packsize_id} belongs to product ${packsize.productId}, not ${detail.product_id}`,
        code: ValidationCode.packsizeNotOfProduct,
      });
    }
  });

  return {
    location: location?.active && input.locationId !== undefined ? { id: input.locationId, code: location.code } : null,
    financialYear,
  };
};
