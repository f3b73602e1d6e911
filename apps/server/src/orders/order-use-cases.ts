import type {
  CreateSalesOrderBody,
  ListSalesOrdersFilters,
  MaxNumberQuery,
  UpdateSalesOrderBody,
} from '@sales-order/contract';

import type { IdempotencyGuard } from '../idempotency/idempotency-service.js';
import { createOrder } from './create-order.js';
import { deleteOrder } from './delete-order.js';
import { getMaxNumber } from './get-max-number.js';
import { getOrder } from './get-order.js';
import { getOrderHistory } from './get-order-history.js';
import { listOrders } from './list-orders.js';
import type { Actor } from './order.js';
import type { OrderDeps } from './order-use-case.js';
import type { ExpectedVersions } from './order-versions.js';
import { updateOrder } from './update-order.js';

/** Every order use case (one module each), bound to its dependencies: what the routes call. */
export const createOrderUseCases = (deps: OrderDeps) => ({
  get: (id: number) => getOrder(deps, id),
  list: (query: ListSalesOrdersFilters) => listOrders(deps, query),
  history: (id: number) => getOrderHistory(deps, id),
  maxNumber: (query: MaxNumberQuery) => getMaxNumber(deps, query),
  create: (input: CreateSalesOrderBody, actor: Actor, idempotency?: IdempotencyGuard) =>
    createOrder(deps, input, actor, idempotency),
  update: (id: number, input: UpdateSalesOrderBody, actor: Actor, expected?: ExpectedVersions) =>
    updateOrder(deps, id, input, actor, expected),
  remove: (id: number, actor: Actor, expected?: ExpectedVersions) => deleteOrder(deps, id, actor, expected),
});

export type OrderUseCases = ReturnType<typeof createOrderUseCases>;
