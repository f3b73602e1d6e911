import type {
  CancelSalesOrderBody,
  ConfirmSalesOrderBody,
  CreateSalesOrderBody,
  ListSalesOrdersFilters,
  MaxNumberQuery,
  UpdateSalesOrderBody,
} from '@sales-order/contract';

import type { IdempotencyGuard } from '../idempotency/idempotency-service.js';
import { amendOrder } from './amend-order.js';
import { cancelOrder } from './cancel-order.js';
import { closeOrder } from './close-order.js';
import { confirmOrder } from './confirm-order.js';
import { createOrder } from './create-order.js';
import { deleteOrder } from './delete-order.js';
import { getMaxNumber } from './get-max-number.js';
import { getOrder } from './get-order.js';
import { getOrderHistory, type HistoryPageRequest } from './get-order-history.js';
import { listOrders } from './list-orders.js';
import type { Actor } from './order.js';
import type { Expected } from './order-preconditions.js';
import type { TransitionRequest } from './order-transition.js';
import type { OrderDeps } from './order-use-case.js';
import { updateOrder } from './update-order.js';

/** Every order use case (one module each), bound to its dependencies: what the routes call. */
export const createOrderUseCases = (deps: OrderDeps) => ({
  get: (id: number) => getOrder(deps, id),
  list: (query: ListSalesOrdersFilters) => listOrders(deps, query),
  history: (id: number, page?: HistoryPageRequest) => getOrderHistory(deps, id, page),
  maxNumber: (query: MaxNumberQuery) => getMaxNumber(deps, query),
  create: (input: CreateSalesOrderBody, actor: Actor, idempotency?: IdempotencyGuard) =>
    createOrder(deps, input, actor, idempotency),
  update: (id: number, input: UpdateSalesOrderBody, actor: Actor, expected?: Expected) =>
    updateOrder(deps, id, input, actor, expected),
  remove: (id: number, actor: Actor, expected?: Expected) => deleteOrder(deps, id, actor, expected),
  confirm: (id: number, body: ConfirmSalesOrderBody, request: TransitionRequest) =>
    confirmOrder(deps, id, body, request),
  cancel: (id: number, body: CancelSalesOrderBody, request: TransitionRequest) => cancelOrder(deps, id, body, request),
  close: (id: number, request: TransitionRequest) => closeOrder(deps, id, request),
  amend: (id: number, request: TransitionRequest) => amendOrder(deps, id, request),
});

export type OrderUseCases = ReturnType<typeof createOrderUseCases>;
