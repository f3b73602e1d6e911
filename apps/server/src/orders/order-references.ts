import { type ErrorDetail, type SalesOrderDetailInput, ValidationCode } from '@sales-order/contract';

import { type Db, masterDataRepository } from '../master-data/master-data-repository.js';
import { checkProductsUsable } from '../master-data/product-checks.js';
import { parseCalendarDate } from '../shared/calendar.js';

/**
 * Checks the master data an order refers to: one query per table, whatever the number of
 * lines. Every problem is reported (with the path of the offending input), not just the first.
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

  const [customer, location, financialYear, products, packsizes] = await Promise.all([
    customerId === undefined ? undefined : masterDataRepository.findCustomer(db, customerId),
    input.locationId === undefined ? undefined : masterDataRepository.findLocation(db, input.locationId),
    salesOrderDate === undefined
      ? undefined
      : masterDataRepository.findFinancialYearCovering(db, parseCalendarDate(salesOrderDate)),
    productIds.length === 0 ? [] : masterDataRepository.findProducts(db, productIds),
    packsizeIds.length === 0 ? [] : masterDataRepository.findPacksizes(db, packsizeIds),
  ]);

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
    location: location?.active ? { id: location.id, code: location.code } : null,
    financialYear: financialYear ?? null,
  };
};
