import { eventsContract } from '@sales-order/contract';
import { initServer } from '@ts-rest/express';

import type { Services } from '../services.js';
import { accessOf } from './access.js';
import { success } from './envelope.js';

const s = initServer();

/** GET /events bound to its use case; the contract has validated the query. */
export const createEventsRouter = ({ events }: Services) =>
  s.router(eventsContract, {
    listEvents: async ({ query, req }) => ({ status: 200, body: success(await events.list(accessOf(req), query)) }),
  });
