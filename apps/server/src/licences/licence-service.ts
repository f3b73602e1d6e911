import type { LicenceValidation, ValidateLicenceBody } from '@sales-order/contract';

import type { Db } from '../db/transactions.js';
import { unprocessable } from '../errors/domain-error.js';
import { checkProductsUsable } from '../master-data/product-checks.js';
import { parseCalendarDate } from '../shared/calendar.js';
import { type Decimal, toDecimal } from '../shared/money.js';
import { licenceRepository } from './licence-repository.js';
import { licenceWarnings } from './licence-rules.js';

/** The quantity asked of each product, lines of one product added up, in first-appearance order. */
const quantityByProduct = (lines: ValidateLicenceBody['sales_order_details']): Map<number, Decimal> => {
  const totals = new Map<number, Decimal>();
  for (const line of lines) {
    const quantity = toDecimal(line.quantity);
    totals.set(line.product_id, totals.get(line.product_id)?.plus(quantity) ?? quantity);
  }
  return totals;
};

/**
 * The validate-licence use case: warnings, never a refusal, about the licences of the products
 * on an order. One statement whatever the number of lines: the products with their licences
 * and what orders have already used of each. Without an order date the licences are checked
 * for `today()`, today's calendar date in the business's time zone.
 */
export const createLicenceService = (db: Db, today: () => Date) => ({
  async validate(body: ValidateLicenceBody): Promise<LicenceValidation> {
    const date = body.sales_order_date === undefined ? today() : parseCalendarDate(body.sales_order_date);
    const quantities = quantityByProduct(body.sales_order_details);

    const products = await licenceRepository.findProductsWithLicences(
      db,
      [...quantities.keys()],
      date,
      body.sales_order_id,
    );
    const { value: productsById, problems } = checkProductsUsable(
      body.sales_order_details,
      products,
      'sales_order_details',
    );
    if (problems.length > 0) throw unprocessable(problems);

    const warnings = [...quantities].flatMap(([productId, quantity]) => {
      // Every product was found above, or the request was refused.
      const product = productsById.get(productId)!;
      return licenceWarnings(product, quantity, product.licences, product.consumed, date);
    });
    return {
      validation_message: warnings.map((warning) => warning.message).join('\n'),
      has_warnings: warnings.length > 0,
      warnings,
    };
  },
});
