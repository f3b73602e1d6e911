import type { ErrorDetail, LicenceWarning } from '@sales-order/contract';

import type { Db } from '../db/transactions.js';
import { unprocessable } from '../errors/domain-error.js';
import { licenceWarningsFor } from '../licences/licence-service.js';
import { parseCalendarDate } from '../shared/calendar.js';
import { referenceProblems } from './order-references.js';
import { orderReferenceStore } from './store/order-reference-store.js';
import type { LockedOrder, StoredContents } from './store/order-write-store.js';

/**
 * What confirming an order checks, inside the confirming transaction (POST
 * /sales-orders/{id}/confirm, and a create that asks for `status: confirmed`):
 * - the customer, the location and every product are still active, and the order date lies in
 *   an active financial year: otherwise 422, whatever the caller acknowledges;
 * - the licence warnings validate-licence would give for the lines (quota, expiry, missing
 *   licence), counted with every other confirmed or closed order: otherwise 422 with the
 *   warnings as details, unless the caller acknowledges them, and then they are recorded.
 * The limited products' quota locks are taken by the statement that reads the quota, before it
 * sums, and held to the commit: run this last before the write that confirms, so that the locks
 * are held across as few round trips as can be (the write, the commit).
 * Returns the warnings acknowledged (none when there were none).
 */
export const checkConfirmable = async (
  db: Db,
  id: number,
  order: LockedOrder,
  contents: StoredContents,
  acknowledgeWarnings: boolean,
): Promise<LicenceWarning[]> => {
  const details = contents.lines.map((line) => ({ product_id: line.product_id }));
  const productIds = [...new Set(details.map((line) => line.product_id))];
  const found = await orderReferenceStore.find(db, {
    customerId: order.customer_id,
    locationId: order.location_id,
    salesOrderDate: order.sales_order_date,
    productIds,
    packsizeIds: [],
  });
  const references = referenceProblems(
    {
      customerId: order.customer_id,
      locationId: order.location_id,
      salesOrderDate: order.sales_order_date,
      details,
    },
    found,
  );
  if (references.problems.length > 0) throw unprocessable(references.problems, 'The order cannot be confirmed');

  const licence = await licenceWarningsFor(
    db,
    contents.lines,
    parseCalendarDate(order.sales_order_date),
    id,
    'details',
    true,
  );
  if (licence.problems.length > 0) throw unprocessable(licence.problems, 'The order cannot be confirmed');
  const warnings = licence.value;
  if (warnings.length === 0 || acknowledgeWarnings) return warnings;
  const firstLineOf = (productId: number) => contents.lines.findIndex((line) => line.product_id === productId);
  const refusals: ErrorDetail[] = warnings.map((warning) => ({
    path: `details.${firstLineOf(warning.product_id)}.product_id`,
    message: warning.message,
    code: warning.code,
  }));
  throw unprocessable(
    refusals,
    'The order has licence warnings: confirm with acknowledge_warnings true to confirm it despite them',
  );
};
