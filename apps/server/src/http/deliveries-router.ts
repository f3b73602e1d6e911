import { deliveriesContract, type Delivery, DeliverySchema, type EntityTagCondition } from '@sales-order/contract';
import { initServer } from '@ts-rest/express';
import type { Request } from 'express';

import type { DeliveryWriteRequest } from '../deliveries/delivery-use-case.js';
import type { IdempotencyGuard } from '../idempotency/idempotency-service.js';
import type { Services } from '../services.js';
import { accessOf } from './access.js';
import { expectedOf } from './conditional-requests.js';
import { success } from './envelope.js';

const s = initServer();

type WriteHeaders = { 'if-match'?: EntityTagCondition; 'idempotency-key'?: string };

/**
 * The delivery routes bound to their use cases. Handlers only translate. A write's If-Match names
 * its order's ETag (optional, also where REQUIRE_IF_MATCH asks it of updates); its
 * Idempotency-Key's fingerprint covers the route and the record it names as well as the body.
 */
export const createDeliveriesRouter = ({ deliveries, idempotency }: Services) => {
  const write = async (
    req: Pick<Request, 'access'>,
    headers: WriteHeaders,
    request: Record<string, unknown>,
    perform: (request: DeliveryWriteRequest) => Promise<Delivery>,
  ) => {
    const access = accessOf(req);
    const expected = expectedOf(headers['if-match'], false);
    const key = headers['idempotency-key'];
    if (key === undefined) return { result: await perform({ access, expected }), replayed: false };
    return idempotency.run(
      access,
      { key, request },
      DeliverySchema,
      (guard: IdempotencyGuard<Delivery>) => perform({ access, expected, idempotency: guard }),
      // A replay answers only a caller whose scope still reaches the delivery's location.
      (delivery) => [delivery.location_id],
    );
  };
  const replayHeader = (res: { setHeader: (name: string, value: string) => unknown }, replayed: boolean) => {
    if (replayed) res.setHeader('Idempotent-Replayed', 'true');
  };

  return s.router(deliveriesContract, {
    recordDelivery: async ({ params, body, headers, req, res }) => {
      const { result, replayed } = await write(
        req,
        headers,
        { delivery: 'record', sales_order_id: params.id, body },
        (request) => deliveries.record(params.id, body, request),
      );
      replayHeader(res, replayed);
      res.setHeader('Location', `${req.baseUrl}/deliveries/${result.delivery_id}`);
      return { status: 201, body: success(result, 'Delivery recorded') };
    },

    listOrderDeliveries: async ({ params, req }) => ({
      status: 200,
      body: success(await deliveries.ofOrder(accessOf(req), params.id)),
    }),

    listDeliveries: async ({ query, req }) => ({
      status: 200,
      body: success(await deliveries.list(accessOf(req), query)),
    }),

    getDelivery: async ({ params, req }) => ({
      status: 200,
      body: success(await deliveries.get(accessOf(req), params.id)),
    }),

    cancelDelivery: async ({ params, body, headers, req, res }) => {
      const { result, replayed } = await write(
        req,
        headers,
        { delivery: 'cancel', delivery_id: params.id, body },
        (request) => deliveries.cancel(params.id, body, request),
      );
      replayHeader(res, replayed);
      return { status: 200, body: success(result, 'Delivery cancelled') };
    },

    recordReturn: async ({ params, body, headers, req, res }) => {
      const { result, replayed } = await write(
        req,
        headers,
        { delivery: 'return', delivery_id: params.id, body },
        (request) => deliveries.recordReturn(params.id, body, request),
      );
      replayHeader(res, replayed);
      return { status: 201, body: success(result, 'Return recorded') };
    },
  });
};
