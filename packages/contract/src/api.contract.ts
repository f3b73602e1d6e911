import { initContract } from '@ts-rest/core';

import { apiKeysContract } from './api-keys.js';
import { deliveriesContract } from './deliveries.js';
import { eventsContract } from './events.js';
import { importsContract } from './imports.js';
import { orderChangesContract } from './order-changes.js';
import { reportsContract } from './reports.js';
import { salesOrdersContract } from './sales-orders.contract.js';
import { webhookEndpointsContract } from './webhook-endpoints.js';

/**
 * The type is named from the contracts rather than inferred: an inferred type is written
 * out in full in the declarations, which repeated every route's schemas a second time (half of
 * the SDK's .d.ts).
 */
export type ApiContract = typeof salesOrdersContract &
  typeof orderChangesContract &
  typeof eventsContract &
  typeof webhookEndpointsContract &
  typeof importsContract &
  typeof apiKeysContract &
  typeof reportsContract &
  typeof deliveriesContract;

/** Every route of the service, one contract per resource: what the OpenAPI document describes. */
export const apiContract: ApiContract = initContract().router({
  ...salesOrdersContract,
  ...orderChangesContract,
  ...eventsContract,
  ...webhookEndpointsContract,
  ...importsContract,
  ...apiKeysContract,
  ...reportsContract,
  ...deliveriesContract,
});
