import { type ErrorDetail, type SalesOrderDetailInput, ValidationCode } from '@sales-order/contract';

import type { Db } from '../db/transactions.js';
import type { Checked } from '../errors/checked.js';
import { checkProductsUsable } from '../master-data/product-checks.js';
import { parseCalendarDate } from '../shared/calendar.js';
import { type FoundReferences, orderReferenceStore, type ReferenceLookup } from './store/order-reference-store.js';

/**
 * Checks the master data an order refers to (customer, location, the financial year of its
 * date, products, packsizes), looked up in one statement. Every problem is reported with the
 * path of the offending input, not just the first.
 */

interface ReferenceInput {
  customerId?: number;
  locationId?: number;
  salesOrderDate?: string;
  details?: Pick<SalesOrderDetailInput, 'product_id' | 'packsize_id'>[];
  /** null: the order names none (nothing to check). */
  fieldOfficerId?: number | null;
  portId?: number | null;
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
  fieldOfficerId: number | null;
  portId: number | null;
}

export interface ResolvedReferences {
  location: { id: number; code: string } | null;
  financialYear: { id: number; startDate: Date } | null;
}

const unique = (ids: number[]) => [...new Set(ids)];

/** An id the input names and the order does not already hold: only those are looked up and checked. */
const changedId = (input: number | null | undefined, current: number | null | undefined): number | undefined =>
  input == null || input === current ? undefined : input;

const inactiveOrMissing = (
  path: string,
  what: string,
  id: number,
  active: boolean | null,
  code: string,
): ErrorDetail[] =>
  active === true
    ? []
    : [{ path, message: `${what} ${id} ${active === false ? 'is inactive' : 'does not exist'}`, code }];

/** The problems of the references an order names, given what the lookup found: pure. */
export const referenceProblems = (
  input: ReferenceInput,
  found: FoundReferences,
  current?: CurrentReferences,
): Checked<ResolvedReferences> => {
  const customerId = input.customerId === current?.customerId ? undefined : input.customerId;
  const salesOrderDate = input.salesOrderDate === current?.salesOrderDate ? undefined : input.salesOrderDate;
  const details = input.details ?? [];
  const customer = found.customer_active === null ? null : { active: found.customer_active };
  const location =
    found.location_code === null ? null : { code: found.location_code, active: found.location_active === true };
  const financialYear =
    found.financial_year_id === null || found.financial_year_start === null
      ? null
      : { id: found.financial_year_id, startDate: parseCalendarDate(found.financial_year_start) };

  const problems: ErrorDetail[] = [];
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

  const fieldOfficerId = changedId(input.fieldOfficerId, current?.fieldOfficerId);
  if (fieldOfficerId !== undefined) {
    problems.push(
      ...inactiveOrMissing(
        'field_officer_id',
        'field officer',
        fieldOfficerId,
        found.field_officer_active,
        ValidationCode.unknownFieldOfficer,
      ),
    );
  }
  const portId = changedId(input.portId, current?.portId);
  if (portId !== undefined) {
    problems.push(...inactiveOrMissing('port_id', 'port', portId, found.port_active, ValidationCode.unknownPort));
  }

  const usableProducts = found.products.map((product) => ({
    ...product,
    active: product.active || (current?.productIds.has(product.id) ?? false),
  }));
  problems.push(...checkProductsUsable(details, usableProducts, 'details').problems);
  const packsizesById = new Map(found.packsizes.map((packsize) => [packsize.id, packsize]));
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
    value: {
      location:
        location?.active && input.locationId !== undefined ? { id: input.locationId, code: location.code } : null,
      financialYear,
    },
    problems,
  };
};

/** What to look up for an order's references: only what it names and does not already hold. */
const lookupOf = (input: ReferenceInput, current?: CurrentReferences): ReferenceLookup => {
  const details = input.details ?? [];
  return {
    customerId: input.customerId === current?.customerId ? undefined : input.customerId,
    locationId: input.locationId,
    salesOrderDate: input.salesOrderDate === current?.salesOrderDate ? undefined : input.salesOrderDate,
    productIds: unique(details.map((detail) => detail.product_id)),
    packsizeIds: unique(details.flatMap((detail) => (detail.packsize_id == null ? [] : [detail.packsize_id]))),
    fieldOfficerId: changedId(input.fieldOfficerId, current?.fieldOfficerId),
    portId: changedId(input.portId, current?.portId),
  };
};

/** Looks the references up (one statement) and checks them. */
export const checkOrderReferences = async (
  db: Db,
  input: ReferenceInput,
  current?: CurrentReferences,
): Promise<Checked<ResolvedReferences>> =>
  referenceProblems(input, await orderReferenceStore.find(db, lookupOf(input, current)), current);

/** The references of many new orders (a bulk create), looked up in one statement whatever their number, each checked. */
export const checkReferencesOfEach = async (
  db: Db,
  inputs: readonly ReferenceInput[],
): Promise<Checked<ResolvedReferences>[]> => {
  if (inputs.length === 0) return [];
  const found = await orderReferenceStore.findEach(
    db,
    inputs.map((input) => lookupOf(input)),
  );
  return inputs.map((input, index) =>
    referenceProblems(input, { ...found.orders[index]!, products: found.products, packsizes: found.packsizes }),
  );
};
