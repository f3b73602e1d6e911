import {
  ChangeCode,
  DeliveryCode,
  type ErrorDetail,
  type LicenceValidation,
  type LicenceWarning,
  type OpenChangeBody,
} from '@sales-order/contract';

import type { Db } from '../db/transactions.js';
import type { Checked } from '../errors/checked.js';
import { licenceWarningsFor } from '../licences/licence-service.js';
import { checkOrderReferences } from '../orders/order-references.js';
import type { LockedOrder } from '../orders/store/order-write-store.js';
import { parseCalendarDate } from '../shared/calendar.js';
import { type ChangePlan, planChange, previewOrder, type StoredLine, totalsOf } from './change-model.js';
import type { ChangePreview } from './store/change-store.js';

export type ChangeRequest = Pick<OpenChangeBody, 'details' | 'other_charges'>;

/** What open and apply both work out for a request against the order as it stands. */
export interface CheckedChange {
  plan: ChangePlan;
  preview: ChangePreview;
  warnings: LicenceWarning[];
}

/**
 * A request against the order as it stands: the plan (change-model.ts), the references of the
 * lines it names (only those: a line it leaves alone may name a product deactivated since), and
 * the licence findings of what it adds to what the order holds of each product (a decrease or a
 * rate-only change checks no licence at all). With `lockQuota` (apply), the licence statement
 * takes the quota locks of the limited products first, as a confirm's, held to the commit.
 */
export const checkChange = async (
  db: Db,
  order: LockedOrder,
  stored: { lines: StoredLine[]; charges: Parameters<typeof previewOrder>[1] },
  request: ChangeRequest,
  lockQuota: boolean,
): Promise<Checked<CheckedChange>> => {
  const totalsBefore = {
    subtotal: order.subtotal,
    other_charges_total: order.other_charges_total,
    grand_total: order.grand_total,
  };
  const planned = planChange(request, { ...stored, totals: totalsBefore });
  const plan = planned.value;
  const preview = (licence: LicenceValidation): ChangePreview => ({
    order: previewOrder(plan, stored.charges),
    totals_before: totalsOf(totalsBefore),
    differences: plan.differences,
    licence,
  });
  const none: LicenceValidation = { validation_message: '', has_warnings: false, warnings: [] };
  // A request that cannot be planned (an unknown line, an incomplete new one) is refused before any look-up.
  if (
    planned.problems.some(
      (problem) => problem.code === DeliveryCode.unknownOrderLine || problem.code === ChangeCode.newLineIncomplete,
    )
  ) {
    return { value: { plan, preview: preview(none), warnings: [] }, problems: planned.problems };
  }
  const byId = new Map(stored.lines.map((line) => [line.id, line]));
  const references = await checkOrderReferences(
    db,
    {
      details: (request.details ?? []).map((line) => {
        const before = line.sales_order_detail_id === undefined ? undefined : byId.get(line.sales_order_detail_id);
        return {
          product_id: line.product_id ?? before?.product_id ?? 0,
          packsize_id: line.packsize_id === undefined ? (before?.packsize_id ?? null) : line.packsize_id,
        };
      }),
    },
    {
      customerId: order.customer_id,
      salesOrderDate: order.sales_order_date,
      productIds: new Set(stored.lines.map((line) => line.product_id)),
      packsizeIds: new Set(stored.lines.flatMap((line) => (line.packsize_id === null ? [] : [line.packsize_id]))),
      fieldOfficerId: order.field_officer_id,
      portId: order.port_id,
    },
  );
  const problems: ErrorDetail[] = [...planned.problems, ...references.problems];
  let warnings: LicenceWarning[] = [];
  if (problems.length === 0 && plan.increases.length > 0) {
    const licence = await licenceWarningsFor(
      db,
      plan.increases,
      parseCalendarDate(order.sales_order_date),
      undefined,
      'details',
      lockQuota,
    );
    problems.push(
      ...licence.problems.map((problem, index) => ({
        ...problem,
        path: `details.${plan.increases[index]?.requestIndex ?? 0}.product_id`,
      })),
    );
    warnings = licence.value;
  }
  const licence: LicenceValidation = {
    validation_message: warnings.map((warning) => warning.message).join('\n'),
    has_warnings: warnings.length > 0,
    warnings,
  };
  return {
    value: { plan, preview: preview(licence), warnings },
    problems,
  };
};

/** The 422 details of licence warnings not acknowledged: at the first requested line of each product. */
export const warningRefusals = (plan: ChangePlan, warnings: LicenceWarning[]): ErrorDetail[] =>
  warnings.map((warning) => ({
    path: `details.${plan.increases.find((increase) => increase.product_id === warning.product_id)?.requestIndex ?? 0}.product_id`,
    message: warning.message,
    code: warning.code,
  }));
