import { CreatedSalesOrderSchema, salesOrdersContract, versionEntityTag } from '@sales-order/contract';
import { initServer } from '@ts-rest/express';

import type { Services } from '../services.js';
import { actorOf } from './actor.js';
import { expectedVersionsOf } from './conditional-requests.js';
import { success } from './envelope.js';

const s = initServer();

/**
 * The contract's routes bound to the use cases. Handlers only translate: the contract has
 * already validated params, query and body, and the services hold every rule. Keys keep the
 * contract's order, which is also Express's matching order (static paths before /:id).
 */
export const createSalesOrdersRouter = (
  { orders, idempotency, licences, dropdowns, totals }: Services,
  { requireIfMatch }: { requireIfMatch: boolean },
) =>
  s.router(salesOrdersContract, {
    getMaxNumber: async ({ query }) => ({ status: 200, body: success(await orders.maxNumber(query)) }),

    validateLicence: async ({ body }) => ({ status: 200, body: success(await licences.validate(body)) }),

    // ts-rest handlers return promises; calculate-totals has no I/O to await.
    // eslint-disable-next-line @typescript-eslint/require-await
    calculateTotals: async ({ body }) => ({ status: 200, body: success(totals.calculate(body)) }),

    getDropdownOptions: async ({ params, query }) => ({
      status: 200,
      body: success(await dropdowns.options(params.type, query)),
    }),

    listSalesOrders: async ({ query }) => ({ status: 200, body: success(await orders.list(query)) }),

    createSalesOrder: async ({ body, headers, req, res }) => {
      const actor = actorOf(req);
      const key = headers['idempotency-key'];
      const { result: created, replayed } =
        key === undefined
          ? { result: await orders.create(body, actor), replayed: false }
          : await idempotency.run({ subject: actor, key, request: body }, CreatedSalesOrderSchema, (guard) =>
              orders.create(body, actor, guard),
            );
      if (replayed) res.setHeader('Idempotent-Replayed', 'true');
      res.setHeader('Location', `${req.baseUrl}/sales-orders/${created.sales_order_id}`);
      return { status: 201, body: success(created, 'Sales order created successfully') };
    },

    // Express answers 304 itself when If-None-Match matches the ETag set here (req.fresh).
    getSalesOrder: async ({ params, res }) => {
      const order = await orders.get(params.id);
      res.setHeader('ETag', versionEntityTag(order.version));
      return { status: 200, body: success(order) };
    },

    getSalesOrderHistory: async ({ params }) => ({ status: 200, body: success(await orders.history(params.id)) }),

    updateSalesOrder: async ({ params, body, headers, req, res }) => {
      const expected = expectedVersionsOf(headers['if-match'], requireIfMatch);
      const updated = await orders.update(params.id, body, actorOf(req), expected);
      res.setHeader('ETag', versionEntityTag(updated.version));
      return { status: 200, body: success(updated, 'Sales order updated successfully') };
    },

    deleteSalesOrder: async ({ params, headers, req }) => {
      const expected = expectedVersionsOf(headers['if-match'], requireIfMatch);
      return {
        status: 200,
        body: success(await orders.remove(params.id, actorOf(req), expected), 'Sales order deleted successfully'),
      };
    },
  });
