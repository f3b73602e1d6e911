import { initContract } from '@ts-rest/core';

import { eventsContract } from './events.js';
import { salesOrdersContract } from './sales-orders.contract.js';
import { webhookEndpointsContract } from './webhook-endpoints.js';

const c = initContract();

/** Every route of the service, one contract per resource: what the OpenAPI document describes. */
export const apiContract = c.router({ ...salesOrdersContract, ...eventsContract, ...webhookEndpointsContract });

export type ApiContract = typeof apiContract;
