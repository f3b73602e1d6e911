import type {
  BulkCreatedSalesOrders,
  BulkCreateSalesOrdersBody,
  CancelSalesOrderBody,
  ConfirmSalesOrderBody,
  CreatedSalesOrder,
  CreateSalesOrderBody,
  ListSalesOrdersFilters,
  MaxNumberQuery,
  UpdateSalesOrderBody,
} from '@sales-order/contract';

import type { AccessContext } from '../auth/access-context.js';
import type { IdempotencyGuard } from '../idempotency/idempotency-service.js';
import { amendOrder } from './amend-order.js';
import { type BulkCreateDeps, bulkCreateOrders, type WriteTurn } from './bulk-create-orders.js';
import { cancelOrder } from './cancel-order.js';
import { closeOrder } from './close-order.js';
import { confirmOrder } from './confirm-order.js';
import { createOrder } from './create-order.js';
import { deleteOrder } from './delete-order.js';
import { getMaxNumber } from './get-max-number.js';
import { getOrder } from './get-order.js';
import { getOrderHistory, type HistoryPageRequest } from './get-order-history.js';
import { listOrders } from './list-orders.js';
import type { Expected } from './order-preconditions.js';
import type { TransitionRequest } from './order-transition.js';
import { updateOrder } from './update-order.js';

/** Every order use case (one module each), bound to its dependencies: what the routes call. */
export const createOrderUseCases = (deps: BulkCreateDeps) => ({
  get: (access: AccessContext, id: number) => getOrder(deps, access, id),
  list: (access: AccessContext, query: ListSalesOrdersFilters) => listOrders(deps, access, query),
  history: (access: AccessContext, id: number, page?: HistoryPageRequest) => getOrderHistory(deps, access, id, page),
  maxNumber: (access: AccessContext, query: MaxNumberQuery) => getMaxNumber(deps, access, query),
  create: (
    access: Pick<AccessContext, 'subject' | 'locations'>,
    input: CreateSalesOrderBody,
    idempotency?: IdempotencyGuard<CreatedSalesOrder>,
  ) => createOrder(deps, access, input, idempotency),
  bulkCreate: (
    access: AccessContext,
    input: BulkCreateSalesOrdersBody,
    idempotency?: IdempotencyGuard<BulkCreatedSalesOrders>,
    turn?: WriteTurn,
  ) => bulkCreateOrders(deps, access, input, idempotency, turn),
  update: (access: AccessContext, id: number, input: UpdateSalesOrderBody, expected?: Expected) =>
    updateOrder(deps, access, id, input, expected),
  remove: (access: AccessContext, id: number, expected?: Expected) => deleteOrder(deps, access, id, expected),
  confirm: (id: number, body: ConfirmSalesOrderBody, request: TransitionRequest) =>
    confirmOrder(deps, id, body, request),
  cancel: (id: number, body: CancelSalesOrderBody, request: TransitionRequest) => cancelOrder(deps, id, body, request),
  close: (id: number, request: TransitionRequest) => closeOrder(deps, id, request),
  amend: (id: number, request: TransitionRequest) => amendOrder(deps, id, request),
});

export type OrderUseCases = ReturnType<typeof createOrderUseCases>;
