import { type ApplyChangeBody, ChangeCode, type OrderChange } from '@sales-order/contract';

import type { AccessContext } from '../auth/access-context.js';
import { scopeOf } from '../auth/scope.js';
import type { Db } from '../db/transactions.js';
import { DomainError, notFound, stateConflict, unprocessable } from '../errors/domain-error.js';
import type { IdempotencyGuard } from '../idempotency/idempotency-service.js';
import { lockAsExpected } from '../orders/order-preconditions.js';
import type { OrderDeps } from '../orders/order-use-case.js';
import type { LockedOrder } from '../orders/store/order-write-store.js';
import { checkChange, warningRefusals } from './change-checks.js';
import { historyOfChange } from './change-model.js';
import { refuseUnlessConfirmed } from './open-change.js';
import { changeStore, type LockedChange } from './store/change-store.js';

/**
 * Locks the order (404 outside the caller's scope), then its change (404 when the order has no
 * such change), and refuses a change that is no longer open (409): the frame of apply and
 * discard. Two of them on one change run one after the other, and the second sees the first's end.
 */
export const lockOpenChange = async (
  tx: Db,
  access: AccessContext,
  id: number,
  changeId: number,
): Promise<{ order: LockedOrder; locked: LockedChange }> => {
  const order = await lockAsExpected(tx, id, scopeOf(access), undefined);
  const locked = await changeStore.lock(tx, id, changeId);
  if (!locked) throw notFound(`change ${changeId} of sales order ${id} not found`);
  if (locked.change.status !== 'open') {
    throw stateConflict(`The change is ${locked.change.status}`, [
      { path: '', message: `change ${changeId} is ${locked.change.status}, not open`, code: ChangeCode.changeNotOpen },
    ]);
  }
  return { order, locked };
};

/**
 * Applies an open change in one transaction: locks the order, the change and the order's lines
 * (in id order, as a delivery does after the same order lock), checks the change again against
 * the order as it now stands (412 when the order moved on and the change no longer holds), the
 * licence of what it adds under the quota locks (422 unless acknowledged, as confirm), then
 * writes the lines, totals, a new version, the history entry and the `sales_order.changed` event.
 */
export const applyChange = (
  { transactions }: OrderDeps,
  access: AccessContext,
  id: number,
  changeId: number,
  body: ApplyChangeBody,
  idempotency?: IdempotencyGuard<OrderChange>,
): Promise<OrderChange> =>
  transactions.withTransaction(async (tx) => {
    await idempotency?.claim(tx);
    const { order, locked } = await lockOpenChange(tx, access, id, changeId);
    refuseUnlessConfirmed(order.status);
    const stored = await changeStore.linesOf(tx, id, true);
    const checked = await checkChange(tx, order, stored, locked.requested, true);
    if (checked.problems.length > 0) {
      const message = `sales order ${id} moved on since change ${changeId} was opened (version ${locked.change.base_version}, now ${order.version}), and the change no longer holds`;
      throw new DomainError('precondition_failed', 'The change no longer holds: open a new one', [
        { path: '', message, code: ChangeCode.changeNoLongerHolds, current_version: order.version },
        ...checked.problems,
      ]);
    }
    const { plan, preview, warnings } = checked.value;
    if (warnings.length > 0 && body.acknowledge_warnings !== true) {
      throw unprocessable(
        warningRefusals(plan, warnings),
        'The change has licence warnings: apply with acknowledge_warnings true to apply it despite them',
      );
    }
    const version = await changeStore.apply(tx, id, plan, {
      actor: access.subject,
      reason: locked.change.reason,
      changes: historyOfChange({ ...stored, totals: order }, plan),
      acknowledgedWarnings: warnings,
    });
    const applied = await changeStore.end(tx, changeId, access.subject, { status: 'applied', version, preview });
    await idempotency?.complete(tx, [applied]);
    return applied;
  });
