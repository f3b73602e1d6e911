import type { ErrorDetail, LicenceWarning } from '@sales-order/contract';

import type { Db } from '../db/transactions.js';
import { unprocessable } from '../errors/domain-error.js';
import { licenceWarningsFor } from '../licences/licence-service.js';
import { parseCalendarDate } from '../shared/calendar.js';
import { changesOfTransition } from './order-history.js';
import { historyTotals } from './order-history.js';
import { referenceProblems } from './order-references.js';
import type { RenderedOrder } from './store/order-read-store.js';
import type { FoundReferences } from './store/order-reference-store.js';
import { type LockedOrder, orderWriteStore, type StoredContents } from './store/order-write-store.js';

/**
 * Confirms a draft the transaction holds the row lock of (`lockLive`): POST
 * /sales-orders/{id}/confirm, and a create that asks for `status: confirmed`. What it checks:
 * - the customer, the location and every product are still active, and the order date lies in
 *   an active financial year: otherwise 422, whatever the caller acknowledges;
 * - the licence warnings validate-licence would give for the lines (quota, expiry, missing
 *   licence), counted with every other confirmed or closed order: otherwise 422 with the
 *   warnings as details, unless the caller acknowledges them, and then they are recorded.
 * The licence statement takes the limited products' quota locks before it sums and holds them
 * to the commit; confirms sharing a limited product run one at a time from there. So when the
 * caller ends the transaction on a refusal (`refusalEndsTransaction`: POST confirm, whose
 * refusal rolls everything back), the order is written confirmed (status, history entry,
 * event) before that statement, and the locks are held across its answer and the commit only,
 * plus an acknowledged warning's record (docs/decisions.md, "The quota locks are held across as
 * few round trips as can be"). A caller that goes on after a refusal (a bulk create, which
 * confirms the next order in the same transaction) gets the checks first and the write after,
 * so that a refused confirm leaves nothing written. Returns the order as the write rendered it.
 */
export const confirmLocked = async (
  db: Db,
  id: number,
  order: LockedOrder,
  { acknowledgeWarnings, actor, refusalEndsTransaction }: ConfirmRequest,
): Promise<RenderedOrder> => {
  const { contents, references } = await orderWriteStore.contentsWithReferences(db, id, {
    customerId: order.customer_id,
    locationId: order.location_id,
    salesOrderDate: order.sales_order_date,
    packsizeIds: [],
  });
  checkReferences(order, contents, references);
  const history = {
    action: 'confirm',
    actor,
    changes: changesOfTransition(order.status, 'confirmed', historyTotals(order)),
  } as const;
  if (!refusalEndsTransaction) {
    const acknowledged = await checkLicences(db, id, order, contents, acknowledgeWarnings);
    return orderWriteStore.writeTransition(db, id, 'confirmed', {
      ...history,
      ...(acknowledged.length > 0 ? { acknowledgedWarnings: acknowledged } : {}),
    });
  }
  const confirmed = await orderWriteStore.writeTransition(db, id, 'confirmed', history);
  const acknowledged = await checkLicences(db, id, order, contents, acknowledgeWarnings);
  if (acknowledged.length > 0) await orderWriteStore.recordAcknowledged(db, id, confirmed.version, acknowledged);
  return confirmed;
};

/** Who confirms, whether they acknowledge the licence warnings, and what a refusal does to the transaction. */
export interface ConfirmRequest {
  acknowledgeWarnings: boolean;
  actor: string | null;
  /** The caller rolls the whole transaction back when the confirm is refused (see confirmLocked). */
  refusalEndsTransaction: boolean;
}

/** The references a confirm checks (read with its contents): 422 when one is no longer active. */
const checkReferences = (order: LockedOrder, contents: StoredContents, found: FoundReferences): void => {
  const references = referenceProblems(
    {
      customerId: order.customer_id,
      locationId: order.location_id,
      salesOrderDate: order.sales_order_date,
      details: contents.lines.map((line) => ({ product_id: line.product_id })),
    },
    found,
  );
  if (references.problems.length > 0) throw unprocessable(references.problems, 'The order cannot be confirmed');
};

/**
 * The licence warnings of a confirm, under the quota locks its statement takes: 422 unless
 * there are none or the caller acknowledges them. Returns the warnings acknowledged.
 */
const checkLicences = async (
  db: Db,
  id: number,
  order: LockedOrder,
  contents: StoredContents,
  acknowledgeWarnings: boolean,
): Promise<LicenceWarning[]> => {
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
