import type { LicenceValidation, LicenceWarning, ValidateLicenceBody } from '@sales-order/contract';

import type { AccessContext } from '../auth/access-context.js';
import { scopeOf } from '../auth/scope.js';
import type { SqlDb } from '../db/sql-db.js';
import type { Db } from '../db/transactions.js';
import type { Checked } from '../errors/checked.js';
import { unprocessable } from '../errors/domain-error.js';
import { checkProductsUsable } from '../master-data/product-checks.js';
import { parseCalendarDate } from '../shared/calendar.js';
import { type Decimal, toDecimal } from '../shared/money.js';
import { licenceRepository } from './licence-repository.js';
import { licenceWarnings } from './licence-rules.js';

/** A line as the licence check reads it; a stored quantity comes as NUMERIC text. */
interface LicencedLine {
  product_id: number;
  quantity: number | string;
}

/** The quantity asked of each product, lines of one product added up, in first-appearance order. */
const quantityByProduct = (lines: readonly LicencedLine[]): Map<number, Decimal> => {
  const totals = new Map<number, Decimal>();
  for (const line of lines) {
    const quantity = toDecimal(line.quantity);
    totals.set(line.product_id, totals.get(line.product_id)?.plus(quantity) ?? quantity);
  }
  return totals;
};

/**
 * The licence warnings of an order's lines on `date`, one statement whatever the number of
 * lines: the products with their licences and what orders other than `excludeOrderId` hold of
 * each. Unknown or inactive products are problems (at `{path}.{index}.product_id`). The same
 * for validate-licence and for the confirm of an order, so that the two always agree; a confirm
 * passes `lockQuota`, and the statement takes the quota locks before it sums (held to the commit).
 */
export const licenceWarningsFor = async (
  db: SqlDb,
  lines: readonly LicencedLine[],
  date: Date,
  excludeOrderId: number | undefined,
  path: string,
  lockQuota = false,
): Promise<Checked<LicenceWarning[]>> => {
  const quantities = quantityByProduct(lines);
  const products = await licenceRepository.findProductsWithLicences(
    db,
    [...quantities.keys()],
    date,
    excludeOrderId,
    lockQuota,
  );
  const { value: productsById, problems } = checkProductsUsable(lines, products, path);
  if (problems.length > 0) return { value: [], problems };
  const warnings = [...quantities].flatMap(([productId, quantity]) => {
    // Every product was found above, or there were problems.
    const product = productsById.get(productId)!;
    return licenceWarnings(product, quantity, product.licences, product.consumed, date);
  });
  return { value: warnings, problems: [] };
};

/**
 * The validate-licence use case: warnings, never a refusal, about the licences of the products
 * on an order. Without an order date the licences are checked for `today()`, today's calendar
 * date in the business's time zone. Only confirmed and closed orders hold quota.
 */
export const createLicenceService = (db: Db, today: () => Date) => ({
  async validate(access: AccessContext, body: ValidateLicenceBody): Promise<LicenceValidation> {
    // Leaving out an order the caller cannot see would tell it what that order holds: such an
    // id is ignored, as if not sent.
    const excluded =
      body.sales_order_id !== undefined &&
      (await licenceRepository.orderInScope(db, body.sales_order_id, scopeOf(access)))
        ? body.sales_order_id
        : undefined;
    const date = body.sales_order_date === undefined ? today() : parseCalendarDate(body.sales_order_date);
    const { value: warnings, problems } = await licenceWarningsFor(
      db,
      body.sales_order_details,
      date,
      excluded,
      'sales_order_details',
    );
    if (problems.length > 0) throw unprocessable(problems);
    return {
      validation_message: warnings.map((warning) => warning.message).join('\n'),
      has_warnings: warnings.length > 0,
      warnings,
    };
  },
});
