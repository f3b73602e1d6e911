import type { CancelDeliveryBody, RecordDeliveryBody, RecordReturnBody } from '@sales-order/contract';

import type { AccessContext } from '../auth/access-context.js';
import { cancelDelivery } from './cancel-delivery.js';
import type { DeliveryDeps, DeliveryWriteRequest, ListDeliveriesFilters } from './delivery-use-case.js';
import { getDelivery, listDeliveries, listOrderDeliveries } from './read-deliveries.js';
import { recordDelivery } from './record-delivery.js';
import { recordReturn } from './record-return.js';

/** Every delivery use case (one module each), bound to its dependencies: what the routes call. */
export const createDeliveryUseCases = (deps: DeliveryDeps) => ({
  record: (orderId: number, body: RecordDeliveryBody, request: DeliveryWriteRequest) =>
    recordDelivery(deps, orderId, body, request),
  cancel: (id: number, body: CancelDeliveryBody, request: DeliveryWriteRequest) =>
    cancelDelivery(deps, id, body, request),
  recordReturn: (id: number, body: RecordReturnBody, request: DeliveryWriteRequest) =>
    recordReturn(deps, id, body, request),
  get: (access: AccessContext, id: number) => getDelivery(deps, access, id),
  list: (access: AccessContext, query: ListDeliveriesFilters) => listDeliveries(deps, access, query),
  ofOrder: (access: AccessContext, orderId: number) => listOrderDeliveries(deps, access, orderId),
});

export type DeliveryUseCases = ReturnType<typeof createDeliveryUseCases>;
