import type { ApplyChangeBody, OpenChangeBody, OrderChange } from '@sales-order/contract';

import type { AccessContext } from '../auth/access-context.js';
import type { IdempotencyGuard } from '../idempotency/idempotency-service.js';
import type { Expected } from '../orders/order-preconditions.js';
import type { OrderDeps } from '../orders/order-use-case.js';
import { applyChange } from './apply-change.js';
import { discardChange } from './discard-change.js';
import { listChanges } from './list-changes.js';
import { openChange } from './open-change.js';

/** Change requests on confirmed orders (docs/decisions/change-requests.md): what the routes call. */
export const createChangeUseCases = (deps: OrderDeps) => ({
  open: (
    access: AccessContext,
    id: number,
    body: OpenChangeBody,
    expected?: Expected,
    idempotency?: IdempotencyGuard<OrderChange>,
  ) => openChange(deps, access, id, body, expected, idempotency),
  apply: (
    access: AccessContext,
    id: number,
    changeId: number,
    body: ApplyChangeBody,
    idempotency?: IdempotencyGuard<OrderChange>,
  ) => applyChange(deps, access, id, changeId, body, idempotency),
  discard: (access: AccessContext, id: number, changeId: number) => discardChange(deps, access, id, changeId),
  list: (access: AccessContext, id: number) => listChanges(deps, access, id),
});
