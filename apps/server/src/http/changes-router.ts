import { orderChangesContract } from '@sales-order/contract';
import { initServer } from '@ts-rest/express';

import type { Services } from '../services.js';
import { accessOf } from './access.js';
import { expectedOf } from './conditional-requests.js';
import { success } from './envelope.js';

const s = initServer();

/** The change request routes of an order bound to their use cases. Handlers only translate. */
export const createChangesRouter = ({ changes }: Services, { requireIfMatch }: { requireIfMatch: boolean }) =>
  s.router(orderChangesContract, {
    openChange: async ({ params, headers, body, req, res }) => {
      const change = await changes.open(
        accessOf(req),
        params.id,
        body,
        expectedOf(headers['if-match'], requireIfMatch),
      );
      res.setHeader('Location', `${req.baseUrl}/sales-orders/${params.id}/changes`);
      return { status: 201, body: success(change, 'Change opened') };
    },
    listChanges: async ({ params, req }) => ({
      status: 200,
      body: success(await changes.list(accessOf(req), params.id)),
    }),
    applyChange: async ({ params, body, req }) => ({
      status: 200,
      body: success(await changes.apply(accessOf(req), params.id, params.change_id, body), 'Change applied'),
    }),
    discardChange: async ({ params, req }) => ({
      status: 200,
      body: success(await changes.discard(accessOf(req), params.id, params.change_id), 'Change discarded'),
    }),
  });
