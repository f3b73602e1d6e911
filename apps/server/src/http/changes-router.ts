import { ChangeSchema, type OrderChange, orderChangesContract } from '@sales-order/contract';
import { initServer } from '@ts-rest/express';
import type { Request, Response } from 'express';

import type { IdempotencyGuard } from '../idempotency/idempotency-service.js';
import type { Services } from '../services.js';
import { accessOf } from './access.js';
import { expectedOf } from './conditional-requests.js';
import { success } from './envelope.js';

const s = initServer();

/** The change request routes of an order bound to their use cases. Handlers only translate. */
export const createChangesRouter = (
  { changes, idempotency }: Services,
  { requireIfMatch }: { requireIfMatch: boolean },
) => {
  /**
   * Runs a write under the caller's Idempotency-Key when it sends one: the key's fingerprint
   * covers the route, the order and the change as well as the body (one key cannot stand for two calls).
   */
  const once = async (
    req: Pick<Request, 'access'>,
    res: Pick<Response, 'setHeader'>,
    key: string | undefined,
    request: unknown,
    perform: (guard?: IdempotencyGuard<OrderChange>) => Promise<OrderChange>,
  ): Promise<OrderChange> => {
    if (key === undefined) return perform();
    const { result, replayed } = await idempotency.run(
      accessOf(req),
      { key, request },
      ChangeSchema,
      perform,
      // A replay answers only a caller whose scope still reaches the order's location.
      (change) => [change.location_id],
    );
    if (replayed) res.setHeader('Idempotent-Replayed', 'true');
    return result;
  };

  return s.router(orderChangesContract, {
    openChange: async ({ params, headers, body, req, res }) => {
      const access = accessOf(req);
      const expected = expectedOf(headers['if-match'], requireIfMatch);
      const change = await once(
        req,
        res,
        headers['idempotency-key'],
        { change: 'open', id: params.id, body },
        (guard) => changes.open(access, params.id, body, expected, guard),
      );
      res.setHeader('Location', `${req.baseUrl}/sales-orders/${params.id}/changes`);
      return { status: 201, body: success(change, 'Change opened') };
    },
    listChanges: async ({ params, req }) => ({
      status: 200,
      body: success(await changes.list(accessOf(req), params.id)),
    }),
    applyChange: async ({ params, headers, body, req, res }) => {
      const access = accessOf(req);
      const change = await once(req, res, headers['idempotency-key'], { change: 'apply', ...params, body }, (guard) =>
        changes.apply(access, params.id, params.change_id, body, guard),
      );
      return { status: 200, body: success(change, 'Change applied') };
    },
    discardChange: async ({ params, req }) => ({
      status: 200,
      body: success(await changes.discard(accessOf(req), params.id, params.change_id), 'Change discarded'),
    }),
  });
};
