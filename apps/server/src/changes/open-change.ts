import { ChangeCode, type OpenChangeBody, type OrderChange, type SalesOrderStatus } from '@sales-order/contract';

import type { AccessContext } from '../auth/access-context.js';
import { scopeOf } from '../auth/scope.js';
import { stateConflict, unprocessable } from '../errors/domain-error.js';
import type { IdempotencyGuard } from '../idempotency/idempotency-service.js';
import { type Expected, lockAsExpected } from '../orders/order-preconditions.js';
import type { OrderDeps } from '../orders/order-use-case.js';
import { checkChange } from './change-checks.js';
import { changeStore } from './store/change-store.js';

/** 409 unless the order is confirmed: only a confirmed order takes a change request. */
export const refuseUnlessConfirmed = (status: SalesOrderStatus): void => {
  if (status !== 'confirmed') {
    throw stateConflict(`The order is ${status}: only a confirmed order takes a change request`, [
      {
        path: '',
        message: `only a confirmed order takes a change request; this one is ${status}`,
        code: ChangeCode.orderNotChangeable,
        current_status: status,
      },
    ]);
  }
};

/**
 * Opens a change request on a confirmed order, in one transaction under the order's row lock
 * (If-Match checked as for PUT): refuses a second open change (409), plans and checks the
 * change against the order as it stands (422 with every problem), and records it with its
 * preview. The order itself does not change.
 */
export const openChange = (
  { transactions }: OrderDeps,
  access: AccessContext,
  id: number,
  body: OpenChangeBody,
  expected?: Expected,
  idempotency?: IdempotencyGuard<OrderChange>,
): Promise<OrderChange> =>
  transactions.withTransaction(async (tx) => {
    await idempotency?.claim(tx);
    const order = await lockAsExpected(tx, id, scopeOf(access), expected);
    refuseUnlessConfirmed(order.status);
    if (await changeStore.hasOpen(tx, id)) {
      throw stateConflict('The order already has an open change', [
        {
          path: '',
          message: `sales order ${id} already has an open change: apply or discard it first`,
          code: ChangeCode.changeAlreadyOpen,
        },
      ]);
    }
    const stored = await changeStore.linesOf(tx, id, false);
    const request = { details: body.details, other_charges: body.other_charges };
    const checked = await checkChange(tx, order, stored, request, false);
    if (checked.problems.length > 0) throw unprocessable(checked.problems, 'The change cannot be made');
    const change = await changeStore.insert(tx, {
      orderId: id,
      reason: body.reason,
      baseVersion: order.version,
      actor: access.subject,
      requested: request,
      preview: checked.value.preview,
    });
    await idempotency?.complete(tx, [change]);
    return change;
  });
