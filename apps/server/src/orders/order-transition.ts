import type { SalesOrder } from '@sales-order/contract';

import type { AccessContext } from '../auth/access-context.js';
import type { Db } from '../db/transactions.js';
import { stateConflict } from '../errors/domain-error.js';
import type { IdempotencyGuard } from '../idempotency/idempotency-service.js';
import { type Transition, transitionRefusal } from './order.js';
import { type Expected, lockAsExpected } from './order-preconditions.js';
import { toReadShape } from './order-shapes.js';
import type { OrderDeps } from './order-use-case.js';
import { orderReadStore } from './store/order-read-store.js';
import type { LockedOrder } from './store/order-write-store.js';

/** Who asks for a transition, and what they expect of the order. */
export interface TransitionRequest {
  access: AccessContext;
  expected?: Expected;
  idempotency?: IdempotencyGuard<SalesOrder>;
}

/**
 * The frame every transition runs in, one transaction: claims the Idempotency-Key, locks the
 * order and checks If-Match (404, 412), refuses a transition its status does not allow (409),
 * lets `perform` do the transition's own work, then reads back the order it answers with (the
 * result a retry with the key gets). `perform` returns the id of the order to answer with.
 */
export const runTransition = (
  { transactions }: OrderDeps,
  id: number,
  transition: Transition,
  { access, expected, idempotency }: TransitionRequest,
  perform: (tx: Db, order: LockedOrder) => Promise<number>,
): Promise<SalesOrder> =>
  transactions.withTransaction(async (tx) => {
    await idempotency?.claim(tx);
    const current = await lockAsExpected(tx, id, access.locations, expected);
    const refusal = transitionRefusal(current.status, transition);
    if (refusal) throw stateConflict(`The order is ${current.status}`, [refusal]);
    const answerId = await perform(tx, current);
    const order = toReadShape((await orderReadStore.findLive(tx, answerId, access.locations))!);
    await idempotency?.complete(tx, [order]);
    return order;
  });
