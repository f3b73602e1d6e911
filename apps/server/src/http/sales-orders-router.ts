import { salesOrdersContract } from '@sales-order/contract';
import { initServer } from '@ts-rest/express';
import type { Request } from 'express';
import { unauthenticated } from '../errors/domain-error.js';
import type { Services } from '../services.js';
import { success } from './envelope.js';

const s = initServer();

/** The authenticated subject, recorded as created_by, updated_by and deleted_by. */
const actorOf = (req: Pick<Request, 'principal'>): string => {
  // `authenticate` runs before every route; a write without a caller must still never happen.
  if (!req.principal) throw unauthenticated('Authentication required', 'missing_credentials');
  return req.principal.subject;
};

/**
 * The contract's routes bound to the use cases. Handlers only translate: the contract has
 * already validated params, query and body, and the services hold every rule. Keys keep the
 * contract's order, which is also Express's matching order (static paths before /:id).
 */
export const createSalesOrdersRouter = ({ orders, orderList, orderHistory, licences, dropdowns, totals }: Services) =>
  s.router(salesOrdersContract, {
    getMaxNumber: async ({ query }) => ({ status: 200, body: success(await orders.maxNumber(query)) }),

    validateLicence: async ({ body }) => ({ status: 200, body: success(await licences.validate(body)) }),

    calculateTotals: async ({ body }) => ({ status: 200, body: success(totals.calculate(body)) }),

    getDropdownOptions: async ({ params, query }) => ({
      status: 200,
      body: success(await dropdowns.options(params.type, query.selected_id ?? null)),
    }),

    listSalesOrders: async ({ query }) => ({ status: 200, body: success(await orderList.list(query)) }),

    createSalesOrder: async ({ body, req, res }) => {
      const created = await orders.create(body, actorOf(req));
      res.setHeader('Location', `${req.baseUrl}/sales-orders/${created.sales_order_id}`);
      return { status: 201, body: success(created, 'Sales order created successfully') };
    },

    getSalesOrder: async ({ params }) => ({ status: 200, body: success(await orders.get(params.id)) }),

    getSalesOrderHistory: async ({ params }) => ({ status: 200, body: success(await orderHistory.get(params.id)) }),

    updateSalesOrder: async ({ params, body, req }) => ({
      status: 200,
      body: success(await orders.update(params.id, body, actorOf(req)), 'Sales order updated successfully'),
    }),

    deleteSalesOrder: async ({ params, req }) => ({
      status: 200,
      body: success(await orders.remove(params.id, actorOf(req)), 'Sales order deleted successfully'),
    }),
  });
