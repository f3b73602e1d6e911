import { ValidationCode, type ErrorDetail, type SalesOrderDetailInput } from '@sales-order/contract';
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

export interface ResolvedReferences {
  location: { id: number; code: string } | null;
  financialYear: { id: number; startDate: Date } | null;
}

const unique = (ids: number[]) => [...new Set(ids)];

export const checkOrderReferences = async (
  db: Db,
  input: ReferenceInput,
  problems: ErrorDetail[],
): Promise<ResolvedReferences> => {
  const details = input.details ?? [];
  const productIds = unique(details.map((detail) => detail.product_id));
  const packsizeIds = unique(details.flatMap((detail) => (detail.packsize_id == null ? [] : [detail.packsize_id])));

  const [customer, location, financialYear, products, packsizes] = await Promise.all([
    input.customerId === undefined ? undefined : masterDataRepository.findCustomer(db, input.customerId),
    input.locationId === undefined ? undefined : masterDataRepository.findLocation(db, input.locationId),
    input.salesOrderDate === undefined
      ? undefined
      : masterDataRepository.findFinancialYearCovering(db, parseCalendarDate(input.salesOrderDate)),
    productIds.length === 0 ? [] : masterDataRepository.findProducts(db, productIds),
    packsizeIds.length === 0 ? [] : masterDataRepository.findPacksizes(db, packsizeIds),
  ]);

  if (input.customerId !== undefined && !customer?.active) {
    problems.push({
      path: 'customer_id',
      message: `customer ${input.customerId} ${customer ? 'is inactive' : 'does not exist'}`,
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
  if (input.salesOrderDate !== undefined && !financialYear) {
    problems.push({
      path: 'sales_order_date',
      message: `no active financial year contains ${input.salesOrderDate}`,
      code: ValidationCode.dateOutsideFinancialYears,
    });
  }

  checkProductsUsable(details, products, 'details', problems);
  const packsizesById = new Map(packsizes.map((packsize) => [packsize.id, packsize]));
  details.forEach((detail, index) => {
    if (detail.packsize_id == null) return;
    const packsize = packsizesById.get(detail.packsize_id);
    if (!packsize?.active) {
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
