import type { SalesOrder } from '@sales-order/contract';

import type { AccessContext } from '../auth/access-context.js';
import { scopeOf } from '../auth/scope.js';
import type { Db } from '../db/transactions.js';
import { stateConflict } from '../errors/domain-error.js';
import type { IdempotencyGuard } from '../idempotency/idempotency-service.js';
import { type Transition, transitionRefusal } from './order.js';
import { type Expected, lockAsExpected } from './order-preconditions.js';
import { toReadShape } from './order-shapes.js';
import type { OrderDeps } from './order-use-case.js';
import { orderReadStore, type RenderedOrder } from './store/order-read-store.js';
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
 * lets `perform` do the transition's own work, then answers with the order (the result a retry
 * with the key gets). `perform` returns that order as its last statement rendered it, or the id
 * of the order to read back and answer with.
 */
export const runTransition = (
  { transactions }: OrderDeps,
  id: number,
  transition: Transition,
  { access, expected, idempotency }: TransitionRequest,
  perform: (tx: Db, order: LockedOrder) => Promise<number | RenderedOrder>,
): Promise<SalesOrder> =>
  transactions.withTransaction(async (tx) => {
    await idempotency?.claim(tx);
    const current = await lockAsExpected(tx, id, scopeOf(access), expected);
    const refusal = transitionRefusal(current.status, transition);
    if (refusal) throw stateConflict(`The order is ${current.status}`, [refusal]);
    const answer = await perform(tx, current);
    const rendered = typeof answer === 'number' ? await orderReadStore.findLive(tx, answer, scopeOf(access)) : answer;
    const order = toReadShape(rendered!);
    await idempotency?.complete(tx, [order]);
    return order;
  });
